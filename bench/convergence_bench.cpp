// The cost of convergence-aware runs: scenarios/compression_vs_bandwidth.yaml (three jobs of 32
// workers, 150 iterations) simulated on the analytical engine with metrics, without and with the
// Learner (data set, proxy training along every job's records, evaluations). The ratio of the
// two is recorded in docs/PERFORMANCE.md.
#include <benchmark/benchmark.h>

#include <string>

#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "learn/learner.hpp"
#include "sim/analytical/engine.hpp"

namespace {

using namespace dtsim;

const std::string kScenario = std::string(DTSIM_SOURCE_DIR) + "/scenarios/compression_vs_bandwidth.yaml";

void simulate(benchmark::State& state, bool learner) {
  const Scenario s = load_scenario(kScenario, {"run.engine=analytical"});
  const Plan plan = compile_plan(s);
  for (auto _ : state) {
    Recorder rec;
    analytical::AnalyticalExecutor engine(s.cluster);
    const RunInfo info = engine.run(plan, rec);
    benchmark::DoNotOptimize(compute_job_metrics(plan, rec.records(), info));
    if (learner) benchmark::DoNotOptimize(learn::train_jobs(s, plan, rec.records(), learn::load_split(s)));
  }
  state.counters["workers"] = 96;
  state.counters["iterations"] = s.run.iterations + s.run.warmup;
}

void BM_PlainSimulation(benchmark::State& state) { simulate(state, false); }
BENCHMARK(BM_PlainSimulation)->Unit(benchmark::kMillisecond);

void BM_ConvergenceMode(benchmark::State& state) { simulate(state, true); }
BENCHMARK(BM_ConvergenceMode)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
