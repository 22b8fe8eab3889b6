// Rank groups of hybrid layouts against Megatron-LM's documented example, and their invariants.
#include <catch2/catch.hpp>

#include <set>

#include "core/base/error.hpp"
#include "models/parallel/layout.hpp"

using namespace dtsim;

namespace {

HybridLayout make(int t, int p, int d, int e = 1, int c = 1, std::string order = "tp-cp-ep-dp-pp") {
  HybridSpec h;
  h.tensor = t;
  h.pipeline = p;
  h.data = d;
  h.expert = e;
  h.context = c;
  h.rank_order = std::move(order);
  return HybridLayout(h);
}

}  // namespace

TEST_CASE("the default rank order gives megatron's documented groups", "[layout]") {
  // megatron/core/parallel_state.py, initialize_model_parallel's docstring: 16 GPUs, t = 2, p = 4
  // (so d = 2): tensor groups [g0, g1], [g2, g3], ...; pipeline groups [g0, g4, g8, g12], [g1, g5,
  // g9, g13], ...; data groups [g0, g2], [g1, g3], [g4, g6], ...
  const HybridLayout l = make(2, 4, 2);
  REQUIRE(l.size() == 16);
  CHECK(l.group(0, GroupKind::Tensor) == std::vector<int>{0, 1});
  CHECK(l.group(3, GroupKind::Tensor) == std::vector<int>{2, 3});
  CHECK(l.group(0, GroupKind::Pipeline) == std::vector<int>{0, 4, 8, 12});
  CHECK(l.group(13, GroupKind::Pipeline) == std::vector<int>{1, 5, 9, 13});
  CHECK(l.group(0, GroupKind::Data) == std::vector<int>{0, 2});
  CHECK(l.group(5, GroupKind::Data) == std::vector<int>{5, 7});
  CHECK(l.group(0, GroupKind::Model) == std::vector<int>{0, 1, 4, 5, 8, 9, 12, 13});
  CHECK(l.stage(9) == 2);
}

TEST_CASE("every rank is in exactly one group of each kind, of the kind's size", "[layout]") {
  const HybridLayout l = make(2, 2, 4, 2, 2, "pp-dp-tp-ep-cp");
  REQUIRE(l.size() == 32);
  const std::vector<std::pair<GroupKind, int>> sizes{
      {GroupKind::Tensor, 2},     {GroupKind::Context, 2},  {GroupKind::Expert, 2}, {GroupKind::Data, 8},
      {GroupKind::ExpertData, 4}, {GroupKind::Pipeline, 2}, {GroupKind::Model, 4}};
  for (const auto& [kind, size] : sizes) {
    std::multiset<int> seen;
    for (const auto& g : l.groups(kind)) {
      CHECK(static_cast<int>(g.size()) == size);
      for (int r : g) {
        seen.insert(r);
        CHECK(l.group(r, kind) == g);
      }
    }
    CHECK(static_cast<int>(seen.size()) == l.size());
    CHECK(std::set<int>(seen.begin(), seen.end()).size() == seen.size());
  }
  // The first dimension of the order varies fastest: pipeline neighbours are adjacent ranks.
  CHECK(l.group(0, GroupKind::Pipeline) == std::vector<int>{0, 1});
  for (int r = 0; r < l.size(); ++r) CHECK(l.rank_of(l.coords(r)) == r);
}

TEST_CASE("a bad rank order is refused naming what is valid", "[layout]") {
  CHECK_THROWS_WITH(parse_rank_order("tp-dp-pp"), Catch::Contains("misses some") && Catch::Contains("tp-cp-ep-dp-pp"));
  CHECK_THROWS_WITH(parse_rank_order("tp-cp-ep-dp-tp"), Catch::Contains("'tp' twice"));
  CHECK_THROWS_WITH(parse_rank_order("tp-cp-xp-dp-pp"), Catch::Contains("'xp'"));
  CHECK_THROWS_AS(make(2, 1, 3, 2), InputError);  // e does not divide d
}
