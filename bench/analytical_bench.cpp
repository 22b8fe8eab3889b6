// How fast the analytical engine evaluates a scenario: load + compile + run, and run alone,
// for the quickstart (8 ranks) and for growing clusters.
#include <benchmark/benchmark.h>

#include <string>

#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "sim/analytical/engine.hpp"
#include "sim/analytical/symmetric.hpp"

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

// GPT-3 175B in Megatron's layout (t 8, p 8, interleaved x 3, SP, selective recompute) on 1,024
// A100s (d 16, global batch 1536: 96 micro-batches), the speed target: the fast path
// (one rank per pipeline stage), and its parts.
const std::string kGpt3 = std::string(DTSIM_SOURCE_DIR) + "/scenarios/gpt3_175b_megatron.yaml";
const std::vector<std::string> kGpt3At1024 = {"cluster.nodes=128", "strategy.global_batch=1536"};

// Arg 1: blocks as composite ops (what sweeps and --no-trace runs use); 0: every kernel an op.
PlanDetail detail_of(const benchmark::State& state) {
  return state.range(0) != 0 ? PlanDetail::Blocks : PlanDetail::Kernels;
}

void BM_Gpt3FastPath(benchmark::State& state) {
  const Scenario s = load_scenario(kGpt3, kGpt3At1024);
  for (auto _ : state) benchmark::DoNotOptimize(analytical::run_stage_representatives(s, detail_of(state)));
}
BENCHMARK(BM_Gpt3FastPath)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_Gpt3LoadAndFastPath(benchmark::State& state) {
  for (auto _ : state) {
    const Scenario s = load_scenario(kGpt3, kGpt3At1024);
    benchmark::DoNotOptimize(analytical::run_stage_representatives(s, PlanDetail::Blocks));
  }
}
BENCHMARK(BM_Gpt3LoadAndFastPath)->Unit(benchmark::kMillisecond);

void BM_Gpt3Compile(benchmark::State& state) {
  const Scenario s = load_scenario(kGpt3, kGpt3At1024);
  size_t ops = 0;
  for (auto _ : state) {
    const Plan plan = compile_plan(s, PlanScope::Representatives, detail_of(state));
    ops = static_cast<size_t>(plan.total_ops());
    benchmark::DoNotOptimize(ops);
  }
  state.counters["ops"] = static_cast<double>(ops);
}
BENCHMARK(BM_Gpt3Compile)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_Gpt3RunOnly(benchmark::State& state) {
  const Scenario s = load_scenario(kGpt3, kGpt3At1024);
  const Plan plan = compile_plan(s, PlanScope::Representatives, detail_of(state));
  for (auto _ : state) {
    Recorder rec;
    analytical::AnalyticalExecutor engine(s.cluster);
    benchmark::DoNotOptimize(engine.run(plan, rec));
  }
}
BENCHMARK(BM_Gpt3RunOnly)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_Gpt3Load(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(load_scenario(kGpt3, kGpt3At1024));
}
BENCHMARK(BM_Gpt3Load)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
