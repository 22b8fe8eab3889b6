// KindSeconds (core/run/kind_seconds.hpp): a std::map of comm_kind's names to seconds, held inline.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "core/run/kind_seconds.hpp"

using namespace dtsim;

TEST_CASE("kind seconds add, sum and iterate in name order, as a map of the names does") {
  KindSeconds k;
  std::map<std::string, double> m;
  const std::vector<std::pair<std::string, double>> adds = {
      {"tensor", 1.5}, {"data", 0.25}, {"pipeline", 2}, {"data", 0.5}, {"p2p", 3}, {"expert_data", 4}, {"tensor", 1}};
  for (const auto& [kind, s] : adds) {
    k[kind] += s;
    m[kind] += s;
  }
  REQUIRE(k.size() == m.size());
  auto it = m.begin();
  for (const auto& [kind, s] : k) {
    CHECK(std::string(kind) == it->first);
    CHECK(s == it->second);
    ++it;
  }
  CHECK(k.at("data") == 0.75);
  CHECK(k.count("data") == 1);
  CHECK(k.count("gossip") == 0);
  CHECK_THROWS_AS(k.at("gossip"), RuntimeError);
  CHECK(nlohmann::json(k) == nlohmann::json(m));
  CHECK(nlohmann::json(KindSeconds{}) == nlohmann::json::object());
}

TEST_CASE("kind seconds hold every kind comm_kind gives, and refuse other names") {
  KindSeconds k;
  for (const char* kind :
       {"tensor", "context", "expert", "data", "expert_data", "pipeline", "model", "p2p", "gossip", "other"}) {
    k[kind] = 1;
  }
  CHECK(k.size() == KindSeconds::kKinds);
  CHECK_THROWS_AS(k["bogus"], RuntimeError);
  // A copy keeps its names, which point at static text, not at the caller's strings.
  KindSeconds copy;
  {
    std::string name = "data";
    copy[name] = 2;
  }
  CHECK(copy.begin()->first == "data");
}
