// tune's engine runs handed out and taken back (EngineRuns): each new run reported once, kept runs reused instead of
// run, and shards of pass 2 that together make the whole of it.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/scenario/loader.hpp"
#include "sim/tune/tuner.hpp"

namespace dtsim::test {
namespace {

using Runs = std::map<std::string, nlohmann::json>;

// GPT-3 175B on 64 A100s: the closed form's best 6 on the analytical engine, 2 of them on SimGrid.
tune::TuneRequest small_request(const Scenario& s) {
  tune::TuneRequest request;
  request.limits = s.job().tune.limits;
  request.top = 2;
  request.screen = 6;
  return request;
}

}  // namespace

TEST_CASE("tune hands each engine run out once, and reuses the runs it is given", "[tune]") {
  const Scenario s = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/gpt3_175b_megatron.yaml");
  const tune::TuneRequest request = small_request(s);
  Runs kept;
  tune::EngineRuns runs;
  runs.on_run = [&](const std::string& key, const nlohmann::json& metrics) {
    CHECK(kept.emplace(key, metrics).second);
  };
  const tune::TuneResult whole = tune::tune(s, request, runs);
  CHECK(whole.ran == 8);
  CHECK(whole.reused == 0);
  REQUIRE(kept.size() == 8);
  REQUIRE(whole.ranked.size() == 6);
  for (size_t i = 0; i < whole.ranked.size(); ++i) {
    CHECK(kept.count(whole.run_key(whole.ranked[i], Engine::Analytical)) == 1);
    CHECK(kept.count(whole.run_key(whole.ranked[i], Engine::SimGrid)) == (i < 2 ? 1 : 0));
  }

  // Every run kept: none runs again, and the ranking is the same.
  tune::EngineRuns again;
  again.finished = [&] { return kept; };
  again.run = [](const std::vector<Scenario>&, const std::vector<size_t>& pending, int,
                 const std::function<void(size_t, const nlohmann::json&)>&) { CHECK(pending.empty()); };
  const tune::TuneResult resumed = tune::tune(s, request, again);
  CHECK(resumed.ran == 0);
  CHECK(resumed.reused == 8);
  REQUIRE(resumed.ranked.size() == whole.ranked.size());
  for (size_t i = 0; i < whole.ranked.size(); ++i) {
    CHECK(resumed.overrides(resumed.ranked[i]) == whole.overrides(whole.ranked[i]));
    CHECK(resumed.ranked[i].iteration_s() == whole.ranked[i].iteration_s());
    CHECK(resumed.ranked[i].analytical_s == whole.ranked[i].analytical_s);
  }

  // A search in which nothing fits never asks for the kept runs (its folder stays untouched).
  tune::TuneRequest tight = request;
  tight.max_memory_fraction = 0.05;
  bool asked = false;
  tune::EngineRuns none;
  none.finished = [&] {
    asked = true;
    return Runs();
  };
  CHECK(tune::tune(s, tight, none).screened == 0);
  CHECK_FALSE(asked);
}

TEST_CASE("tune's shards of pass 2 together run it whole, with all of it, each runs its share of pass 3", "[tune]") {
  const Scenario s = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/gpt3_175b_megatron.yaml");
  const tune::TuneRequest request = small_request(s);
  std::set<std::string> whole;
  Runs analytical;
  tune::EngineRuns runs;
  runs.on_run = [&](const std::string& key, const nlohmann::json& metrics) {
    if (key.rfind("analytical ", 0) != 0) return;
    whole.insert(key);
    analytical.emplace(key, metrics);
  };
  const tune::TuneResult all = tune::tune(s, request, runs);
  REQUIRE(whole.size() == 6);
  std::set<std::string> sharded;
  for (size_t shard = 0; shard < 3; ++shard) {
    std::set<std::string> mine;
    tune::EngineRuns part;
    part.shard = shard;
    part.shards = 3;
    part.on_run = [&](const std::string& key, const nlohmann::json&) { mine.insert(key); };
    const tune::TuneResult r = tune::tune(s, request, part);
    CHECK(r.screened == 6);
    CHECK(r.ranked.size() == 2);
    CHECK(mine.size() == 2);
    for (const std::string& key : mine) {
      CHECK(key.rfind("analytical ", 0) == 0);
      CHECK(sharded.insert(key).second);  // no run in two shards
    }
  }
  CHECK(sharded == whole);
  // With all of pass 2 given, shard k of 2 runs the k-th of the best 2 on SimGrid (the analytical engine's order),
  // and ranks every layout.
  std::vector<tune::Candidate> best(all.ranked.begin(), all.ranked.begin() + 2);
  std::stable_sort(best.begin(), best.end(),
                   [](const tune::Candidate& x, const tune::Candidate& y) { return x.analytical_s < y.analytical_s; });
  for (size_t shard = 0; shard < 2; ++shard) {
    std::vector<std::string> mine;
    tune::EngineRuns part;
    part.shard = shard;
    part.shards = 2;
    part.finished = [&] { return analytical; };
    part.on_run = [&](const std::string& key, const nlohmann::json&) { mine.push_back(key); };
    const tune::TuneResult r = tune::tune(s, request, part);
    CHECK(r.pass2_whole);
    CHECK(r.simgrid_runs == 2);
    REQUIRE(r.ranked.size() == 6);
    REQUIRE(mine.size() == 1);
    CHECK(mine.front() == all.run_key(best[shard], Engine::SimGrid));
  }
}

}  // namespace dtsim::test
