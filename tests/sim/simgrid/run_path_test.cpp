// sim::run (sim/run.hpp): the path of a run decided in one place by the engine and what the caller reads, and the
// same metrics whichever path a scenario takes.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "sim/run.hpp"

using namespace dtsim;
using sim::Records;
using sim::RunPath;

namespace {

const std::string kScenarios = std::string(DTSIM_SOURCE_DIR) + "/scenarios";

sim::RunRequest asking(Records r) { return sim::RunRequest{r, true, {}}; }

}  // namespace

TEST_CASE("a run's path follows the engine and what its caller reads of it") {
  // A symmetric hybrid job (2 pipeline stages) and a data-parallel one (8 workers, 1 job).
  const std::vector<std::string> analytical{"run.engine=analytical", "run.iterations=2", "run.warmup=1"};
  const Scenario hybrid = load_scenario(kScenarios + "/hybrid_pipeline_cpu.yaml", analytical);
  const Scenario ring = load_scenario(kScenarios + "/quickstart.yaml", analytical);
  CHECK(sim::runs_stage_representatives(hybrid));
  CHECK_FALSE(sim::runs_stage_representatives(ring));
  CHECK(sim::run_path(hybrid, asking(Records::None)) == RunPath::SymmetricFastPath);
  CHECK(sim::run_path(hybrid, asking(Records::Blocks)) == RunPath::StageRepresentatives);
  CHECK(sim::run_path(hybrid, asking(Records::Kernels)) == RunPath::StageRepresentatives);
  CHECK(sim::run_path(hybrid, asking(Records::EveryRankKernels)) == RunPath::EveryRank);
  CHECK(sim::run_path(ring, asking(Records::None)) == RunPath::SymmetricFastPath);
  CHECK(sim::run_path(ring, asking(Records::Kernels)) == RunPath::EveryRank);
  // With a straggler no rank stands for another.
  const Scenario slow =
      load_scenario(kScenarios + "/quickstart.yaml",
                    {"run.engine=analytical", "stragglers.slow_workers=1", "stragglers.slow_factor=2"});
  CHECK(sim::run_path(slow, asking(Records::None)) == RunPath::EveryRank);
  // SimGrid runs every rank whatever is read.
  const Scenario on_simgrid = load_scenario(kScenarios + "/hybrid_pipeline_cpu.yaml", {"run.engine=simgrid"});
  CHECK_FALSE(sim::runs_stage_representatives(on_simgrid));
  for (Records r : {Records::None, Records::Blocks, Records::Kernels, Records::EveryRankKernels})
    CHECK(sim::run_path(on_simgrid, asking(r)) == RunPath::EveryRank);
}

TEST_CASE("every path of the analytical engine gives the same metrics, with the records it promises") {
  // 4 ranks: 2 pipeline stages of tensor 2, so that one rank per stage is half of them.
  const Scenario s = load_scenario(
      kScenarios + "/hybrid_pipeline_cpu.yaml",
      {"run.engine=analytical", "run.iterations=2", "run.warmup=1", "strategy.tensor=2", "cluster.devices_per_node=4"});
  const sim::RunResult fast = sim::run(s, asking(Records::None));
  const sim::RunResult blocks = sim::run(s, asking(Records::Blocks));
  const sim::RunResult kernels = sim::run(s, asking(Records::Kernels));
  const sim::RunResult every = sim::run(s, asking(Records::EveryRankKernels));
  CHECK(sim::run_path(s, asking(Records::None)) == RunPath::SymmetricFastPath);
  CHECK(fast.records.empty());
  CHECK(fast.plan.ranks.empty());
  // One rank per stage records ops; every rank's run records them all (blocks: one op each, fewer than kernels).
  CHECK(every.records.size() > kernels.records.size());
  CHECK(kernels.records.size() > blocks.records.size());
  CHECK(every.plan.ranks.size() == kernels.plan.ranks.size());  // the others placed, without programs
  for (const sim::RunResult* r : {&fast, &blocks, &kernels}) {
    REQUIRE(r->metrics.size() == every.metrics.size());
    CHECK(r->metrics.front().iteration_time.mean == Approx(every.metrics.front().iteration_time.mean).epsilon(1e-9));
    CHECK(r->metrics.front().ranks.size() == every.metrics.front().ranks.size());
  }
  // A plan its caller compiled (validate's, scaled) runs as it is, on the scenario's engine.
  const sim::RunResult again = sim::run_plan(s, every.plan);
  CHECK(again.metrics.front().iteration_time.mean == every.metrics.front().iteration_time.mean);
}

TEST_CASE("before_run sees the plan the engine is about to run, once") {
  const Scenario s = load_scenario(kScenarios + "/quickstart.yaml", {"run.iterations=2", "run.warmup=0"});
  int calls = 0;
  size_t ops = 0;
  sim::RunRequest request = asking(Records::Blocks);
  request.before_run = [&](const Plan& p) {
    ++calls;
    ops = static_cast<size_t>(p.total_ops());
  };
  const sim::RunResult r = sim::run(s, request);
  CHECK(calls == 1);
  CHECK(ops == static_cast<size_t>(r.plan.total_ops()));
  CHECK(r.records.size() == ops * 2);  // every op of every rank, each iteration
}

TEST_CASE("a run compiles its plan once, and its memory check reads that plan") {
  struct Case {
    std::string file;
    std::vector<std::string> sets;
    Records records;
    long previews;  // representatives' plans counted before every rank is compiled (the memory check)
  };
  const std::vector<Case> cases{
      // A stage run: the representatives' plan is the one run.
      {"hybrid_pipeline_cpu.yaml", {"run.engine=analytical"}, Records::Blocks, 0},
      {"hybrid_pipeline_cpu.yaml", {"run.engine=analytical"}, Records::Kernels, 0},
      // Every rank of a job with representatives: their plan is counted first.
      {"hybrid_pipeline_cpu.yaml", {"run.engine=simgrid"}, Records::Blocks, 1},
      {"quickstart.yaml", {}, Records::Kernels, 1},
      {"quickstart.yaml",
       {"run.engine=analytical", "stragglers.slow_workers=1", "stragglers.slow_factor=2"},
       Records::None,
       1},
      // A parameter server has no representatives: its one plan is counted.
      {"parameter_server.yaml", {}, Records::Blocks, 0},
  };
  for (const Case& c : cases) {
    INFO(c.file << " " << static_cast<int>(c.records));
    std::vector<std::string> sets = c.sets;
    sets.insert(sets.end(), {"run.iterations=2", "run.warmup=0"});
    const Scenario s = load_scenario(kScenarios + "/" + c.file, sets);
    long before = plans_compiled();
    sim::PreparedRun checked = sim::prepare(s, asking(c.records));
    CHECK(plans_compiled() - before == 1 + c.previews);
    sim::RunRequest unchecked = asking(c.records);
    unchecked.check_memory = false;
    before = plans_compiled();
    const sim::PreparedRun prepared = sim::prepare(s, unchecked);
    CHECK(plans_compiled() - before == 1);
    CHECK(prepared.plan.total_ops() == checked.plan.total_ops());
    if (s.run.engine == Engine::SimGrid) continue;  // SimGrid runs once per process: the count is the plan's
    // Running the prepared run compiles nothing more.
    before = plans_compiled();
    const sim::RunResult r = sim::run(s, std::move(checked), unchecked);
    CHECK(plans_compiled() == before);
    CHECK(r.plan.total_ops() == prepared.plan.total_ops());
  }
  // The symmetric fast path compiles its own representatives' plan, once.
  const Scenario ring = load_scenario(kScenarios + "/quickstart.yaml", {"run.engine=analytical"});
  const long before = plans_compiled();
  sim::run(ring, asking(Records::None));
  CHECK(plans_compiled() - before == 1);
}
