// Speed of dtsim tune's first pass: layouts per second on one core for GPT-3 175B on 1,024 A100s (global batch
// 1,536), the target being 20,000. Timed: the whole pass from a fresh coster (enumerating the space, the
// memory model of every layout, the closed-form cost of those that fit, the probes' plans of each (t, c, e, p) shape
// included), and the closed form alone with its caches warm; beside them, one layout on the analytical engine (its
// stage-representative replay), the cost the closed form saves.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "core/plan/hybrid/job.hpp"
#include "core/scenario/loader.hpp"
#include "models/parallel/layout_space.hpp"
#include "sim/analytical/symmetric.hpp"
#include "sim/tune/layout_cost.hpp"
#include "sim/tune/tuner.hpp"

namespace {

using namespace dtsim;

Scenario gpt3_on_1024() {
  return load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/gpt3_175b_megatron.yaml",
                       {"cluster.nodes=128", "strategy.global_batch=1536", "strategy.pipeline.virtual_stages=1",
                        "strategy.pipeline.schedule=1f1b"});
}

LayoutLimits limits_of(const Scenario& s) {
  LayoutLimits limits;
  limits.devices = s.job().devices(s.cluster);
  limits.global_batch = 1536;
  limits.rank_orders = true;  // as dtsim tune searches by default (tune.rank_orders)
  return limits;
}

void BM_TunePassOne(benchmark::State& state) {
  const Scenario s = gpt3_on_1024();
  const LayoutLimits limits = limits_of(s);
  const double capacity = s.cluster.device_at(0).mem_capacity;
  long layouts = 0;
  for (auto _ : state) {
    tune::LayoutCoster coster(s, 0);
    layouts += for_each_layout(s.job().model.transformer, limits, [&](const HybridSpec& h) {
      double peak = 0;
      for (const StageMemory& m : layout_memory(s.job(), h)) peak = std::max(peak, m.bytes.total());
      if (peak <= capacity) benchmark::DoNotOptimize(coster.cost(h));
    });
  }
  state.counters["layouts/s"] = benchmark::Counter(static_cast<double>(layouts), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TunePassOne)->Unit(benchmark::kMillisecond);

void BM_TuneClosedFormWarm(benchmark::State& state) {
  const Scenario s = gpt3_on_1024();
  std::vector<HybridSpec> all;
  for_each_layout(s.job().model.transformer, limits_of(s), [&](const HybridSpec& h) { all.push_back(h); });
  tune::LayoutCoster coster(s, 0);
  for (const HybridSpec& h : all) coster.cost(h);
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(coster.cost(all[i++ % all.size()]));
  state.counters["layouts/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TuneClosedFormWarm)->Unit(benchmark::kMicrosecond);

void BM_TuneOneLayoutOnTheAnalyticalEngine(benchmark::State& state) {
  const Scenario s = gpt3_on_1024();
  const Scenario run = tune::with_layout(s, s.job().strategy.hybrid, Engine::Analytical);
  for (auto _ : state) benchmark::DoNotOptimize(analytical::run_analytical(run));
  state.counters["layouts/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TuneOneLayoutOnTheAnalyticalEngine)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
