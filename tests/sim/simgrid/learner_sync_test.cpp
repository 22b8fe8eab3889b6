// The Learner on SimGrid records of backup-worker runs: each quorum keeps exactly the first N - b
// gradients, never a straggler's (also one cut in its last backward op, where only the engine's
// order of the quorum records tells it from the worker that completed the quorum), and the
// proxy's numbers match the analytical engine's, where both engines keep the same gradients.
#include <catch2/catch.hpp>

#include <map>

#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "learn/events.hpp"
#include "learn/learner.hpp"
#include "sim/analytical/engine.hpp"
#include "tests/support/simulate.hpp"

using namespace dtsim;

namespace {

const char* const kJob = R"(name: learner_backup
model:
  name: synthetic
  synthetic: {params: 1e6, flops_per_sample: 2GFLOP, layers: 4}
  batch_per_worker: 32
cluster:
  nodes: 5
  devices_per_node: 1
  device: v100
  nic: {rate: 100Gbps, latency: 5us}
sync: {policy: backup, backup_workers: 1}
run:
  iterations: 20
  warmup: 0
  convergence: {enabled: true, eval_every: 5}
)";

}  // namespace

TEST_CASE("on SimGrid the quorum keeps the first N - b gradients, never the straggler's") {
  for (const std::string factor : {"3", "1.02"}) {
    const Scenario s = load_scenario_text(kJob, "learner_backup.yaml",
                                          {"stragglers.slow_workers=0", "stragglers.slow_factor=" + factor});
    const Plan plan = compile_plan(s);
    const auto records = test::simulate(s.cluster, plan, Fidelity::Flow).records;
    std::map<int, std::vector<int>> kept;
    for (const learn::LearnEvent& e : learn::learner_events(plan, 0, records)) {
      if (e.kind == learn::EventKind::Kept) kept[e.iteration].push_back(e.worker);
    }
    REQUIRE(kept.size() == 20);
    bool four = true, straggler = false;
    for (const auto& [it, workers] : kept) {
      four = four && workers.size() == 4;
      for (int w : workers) straggler = straggler || w == 0;
    }
    CHECK(four);
    CHECK_FALSE(straggler);
    // Same kept gradients as on the analytical engine, so the same losses after the same updates.
    Recorder analytical;
    analytical::AnalyticalExecutor(s.cluster).run(plan, analytical);
    const learn::Split data = learn::load_split(s);
    const auto a = learn::train_jobs(s, plan, records, data).front();
    const auto b = learn::train_jobs(s, plan, analytical.records(), data).front();
    REQUIRE(a.curve.size() == b.curve.size());
    for (size_t i = 0; i < a.curve.size(); ++i) CHECK(a.curve[i].loss == b.curve[i].loss);
    CHECK(*a.kept_gradients == 4 * 20);
  }
}
