// How fast the analytical engine evaluates a scenario: load + compile + run, and run alone,
// for the quickstart (8 ranks) and for growing clusters.
#include <benchmark/benchmark.h>

#include <string>

#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "sim/analytical/engine.hpp"

namespace {

using namespace dtsim;

const std::string kQuickstart = std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";

std::vector<std::string> sized(int nodes) {
  return {"cluster.nodes=" + std::to_string(nodes), "run.iterations=1", "run.warmup=0"};
}

void BM_LoadCompileRun(benchmark::State& state) {
  for (auto _ : state) {
    const Scenario s = load_scenario(kQuickstart, sized(static_cast<int>(state.range(0))));
    const Plan plan = compile_plan(s);
    Recorder rec;
    analytical::AnalyticalExecutor engine(s.cluster);
    const RunInfo info = engine.run(plan, rec);
    benchmark::DoNotOptimize(compute_metrics(plan, rec.records(), info));
  }
  state.counters["ranks"] = static_cast<double>(state.range(0) * 4);
}
BENCHMARK(BM_LoadCompileRun)->Arg(2)->Arg(32)->Arg(256)->Unit(benchmark::kMillisecond);

void BM_RunOnly(benchmark::State& state) {
  const Scenario s = load_scenario(kQuickstart, sized(static_cast<int>(state.range(0))));
  const Plan plan = compile_plan(s);
  for (auto _ : state) {
    Recorder rec;
    analytical::AnalyticalExecutor engine(s.cluster);
    benchmark::DoNotOptimize(engine.run(plan, rec));
  }
  state.counters["ranks"] = static_cast<double>(state.range(0) * 4);
  state.counters["ops/s"] =
      benchmark::Counter(static_cast<double>(plan.total_ops()) * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RunOnly)->Arg(2)->Arg(32)->Arg(256)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
