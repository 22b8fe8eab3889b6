// Speed of analytical sweeps: points per second on one core. Each point's Scenario is loaded once
// before timing (YAML and zoo parsing excluded, as a sweep loads each point once and the
// analytical fast path then costs microseconds); timed per point: compiling the representative
// worker's plan, evaluating it, and the point's full metrics (run_symmetric / run_analytical).
#include <benchmark/benchmark.h>

#include <string>

#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "models/cost/cores.hpp"
#include "models/cost/cost_model.hpp"
#include "sim/analytical/engine.hpp"
#include "sim/analytical/stream_sweep.hpp"
#include "sim/analytical/symmetric.hpp"

namespace {

using namespace dtsim;

const std::string kQuickstart = std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";

// The quickstart (ResNet-50, 161 layers) at 1..64 nodes of 4 A100s, as `--param cluster.nodes=1..64:x2`.
std::vector<Scenario> points(const std::string& file, const std::vector<std::string>& extra = {}) {
  std::vector<Scenario> out;
  for (int nodes = 1; nodes <= 64; nodes *= 2) {
    std::vector<std::string> sets = extra;
    sets.push_back("cluster.nodes=" + std::to_string(nodes));
    out.push_back(load_scenario(file, sets));
  }
  return out;
}

void BM_SweepPointFastPath(benchmark::State& state) {
  const auto pts = points(kQuickstart, {"run.iterations=" + std::to_string(state.range(0)), "run.warmup=0"});
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(analytical::run_symmetric(pts[i++ % pts.size()]));
  state.counters["points/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepPointFastPath)->Arg(1)->Arg(10)->Unit(benchmark::kMicrosecond);
// One point of 4 x N ranks, again and again: what a point costs per rank (its per-rank metrics).
void BM_SweepPointFastPathOneSize(benchmark::State& state) {
  const Scenario s = load_scenario(
      kQuickstart, {"cluster.nodes=" + std::to_string(state.range(0)), "run.iterations=1", "run.warmup=0"});
  for (auto _ : state) benchmark::DoNotOptimize(analytical::run_symmetric(s));
  state.counters["ranks"] = static_cast<double>(4 * state.range(0));
}
BENCHMARK(BM_SweepPointFastPathOneSize)->Arg(1)->Arg(64)->Arg(1024)->Unit(benchmark::kMicrosecond);
// Where a point's time goes: the same points with contention off (the engine no longer retimes a rank's compute as
// its communication starts and ends), and compiling the representative plan alone.
void BM_SweepPointNoContention(benchmark::State& state) {
  const auto pts = points(kQuickstart, {"run.iterations=1", "run.warmup=0", "cluster.contention.compute=1"});
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(analytical::run_symmetric(pts[i++ % pts.size()]));
}
BENCHMARK(BM_SweepPointNoContention)->Unit(benchmark::kMicrosecond);
void BM_SweepPointCompileOnly(benchmark::State& state) {
  const auto pts = points(kQuickstart, {"run.iterations=1", "run.warmup=0"});
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(compile_plan(pts[i++ % pts.size()], PlanScope::Representatives));
}
BENCHMARK(BM_SweepPointCompileOnly)->Unit(benchmark::kMicrosecond);

// The representative's two streams swept alone (stream_sweep.hpp), and its metrics alone, on plans compiled and
// costed before timing; records as the fast path makes them (compute ops that follow each other as one).
constexpr auto kRecords = analytical::StreamSweep::Records::Runs;
struct Compiled {
  Scenario s;
  Plan plan;
  std::vector<double> seconds, host;
  double kept = 1;
  std::vector<OpRecord> records;  // the representative's
};
std::vector<Compiled> compiled_points() {
  std::vector<Compiled> out;
  for (Scenario& s : points(kQuickstart, {"run.iterations=1", "run.warmup=0"})) {
    Compiled c{std::move(s), {}, {}, {}, 1, {}};
    c.plan = compile_plan(c.s, PlanScope::Representatives);
    const RankProgram& rep = c.plan.ranks[c.plan.jobs.front().workers.front()];
    const cost::CostModel costs(c.s.cluster, c.plan);
    c.seconds.assign(rep.ops.size(), 0.0);
    c.host.assign(rep.ops.size(), 0.0);
    for (size_t i = 0; i < rep.ops.size(); ++i) {
      const OpBody& body = rep.ops[i].body;
      if (const auto* op = std::get_if<ComputeOp>(&body)) c.seconds[i] = costs.compute_time(rep, *op);
      if (const auto* op = std::get_if<UpdateOp>(&body)) c.seconds[i] = costs.update_time(rep, *op);
      if (const auto* op = std::get_if<CollectiveOp>(&body)) {
        c.seconds[i] = costs.collective_time(*op);
        c.host[i] = costs.collective_host_time(*op);
      }
    }
    c.kept = cost::compute_kept_of(c.s.cluster, c.plan, rep.rank);
    c.records = analytical::StreamSweep::of(rep)->run(rep, c.seconds, c.host, c.kept, 1, kRecords);
    out.push_back(std::move(c));
  }
  return out;
}
void BM_SweepPointStreamsOnly(benchmark::State& state) {
  const auto pts = compiled_points();
  std::vector<analytical::StreamSweep> sweeps;
  for (const Compiled& c : pts) sweeps.push_back(*analytical::StreamSweep::of(c.plan.ranks[c.records.front().rank]));
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ % pts.size();
    const Compiled& c = pts[k];
    benchmark::DoNotOptimize(
        sweeps[k].run(c.plan.ranks[c.records.front().rank], c.seconds, c.host, c.kept, 1, kRecords));
  }
}
BENCHMARK(BM_SweepPointStreamsOnly)->Unit(benchmark::kMicrosecond);
void BM_SweepPointMetricsOnly(benchmark::State& state) {
  auto pts = compiled_points();
  size_t i = 0;
  for (auto _ : state) {
    Compiled& c = pts[i++ % pts.size()];
    JobPlan& jp = c.plan.jobs.front();
    const std::vector<int> workers = jp.workers;
    jp.workers = {workers.front()};
    benchmark::DoNotOptimize(
        compute_metrics(c.plan, c.records, RunInfo{std::string(engine_name(Engine::Analytical)), "closed_form", 0}, 0));
    jp.workers = workers;
  }
}
BENCHMARK(BM_SweepPointMetricsOnly)->Unit(benchmark::kMicrosecond);

// Loading one point's Scenario (the YAML, its --set overrides, the zoo's device and model tables), as a sweep
// loads each point once before it runs.
void BM_SweepPointLoad(benchmark::State& state) {
  int nodes = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(load_scenario(kQuickstart, {"cluster.nodes=" + std::to_string(nodes)}));
    nodes = nodes % 64 + 1;
  }
}
BENCHMARK(BM_SweepPointLoad)->Unit(benchmark::kMicrosecond);

void BM_SweepPointFullEngine(benchmark::State& state) {
  const auto pts = points(kQuickstart, {"run.iterations=1", "run.warmup=0"});
  size_t i = 0;
  for (auto _ : state) {
    const Scenario& s = pts[i++ % pts.size()];
    const Plan plan = compile_plan(s);
    Recorder rec;
    analytical::AnalyticalExecutor engine(s.cluster);
    const RunInfo info = engine.run(plan, rec);
    benchmark::DoNotOptimize(compute_job_metrics(plan, rec.records(), info));
  }
  state.counters["points/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepPointFullEngine)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
