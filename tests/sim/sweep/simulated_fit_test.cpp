// Amdahl's law fitted to simulated strong-scaling sweeps. With a ring AllReduce after the backward
// pass (no overlap), no latency and a fixed global batch, an iteration takes
//   T(N) = C/N + U + 2(N-1)/N * S/B = (U + 2S/B) + (C - 2S/B)/N,
// exactly Amdahl's form with serial fraction (U + 2S/B) / T(1): compute C, update U, gradients S.
#include <catch2/catch.hpp>

#include "core/scenario/loader.hpp"
#include "models/cost/cost_model.hpp"
#include "sim/sweep/scaling_fit.hpp"
#include "tests/support/run_analytical.hpp"
#include "tests/support/simulate.hpp"

using namespace dtsim;

namespace {

const char* const kStrong = R"(name: amdahl
model:
  name: synthetic
  synthetic: {params: 1e8, flops_per_sample: 10GFLOP, layers: 4}
  batch_per_worker: 64
cluster:
  nodes: 1
  device: v100
  nic: {rate: 100Gbps, latency: 0us}
  topology: {switch_latency: 0us}
strategy:
  allreduce: {algorithm: ring, bucket_size: 1GB, overlap: false}
run: {iterations: 2, warmup: 0}
)";

const std::vector<int> kWorkers{1, 2, 4, 8, 16, 32, 64};

Scenario point(int n) {
  return load_scenario_text(kStrong, "amdahl.yaml",
                            {"cluster.nodes=" + std::to_string(n), "model.batch_per_worker=" + std::to_string(64 / n)});
}

// The serial fraction the closed form above gives.
double expected_p() {
  const Scenario one = point(1);
  const Plan plan = compile_plan(one);
  const cost::CostModel costs(one.cluster, plan);
  const auto& update = std::get<UpdateOp>(plan.ranks[0].ops.back().body);
  const double u = costs.update_time(plan.ranks[0], update);
  const double t1 = test::run_analytical(one).front().iteration_time.mean;
  const double comm = 2 * 1e8 * 4 / 12.5e9;
  return 1 - (u + comm) / t1;
}

sweep::LawFit fit(const std::vector<double>& throughput) {
  std::vector<sweep::ScalingPoint> points;
  for (size_t i = 0; i < kWorkers.size(); ++i) {
    sweep::ScalingPoint p;
    p.workers = kWorkers[i];
    p.throughput_samples_per_s = throughput[i];
    points.push_back(p);
  }
  return sweep::analyze_scaling(points, 0.8, sweep::ScalingMode::Strong).amdahl.value();
}

}  // namespace

TEST_CASE("Amdahl's p from an analytical strong-scaling sweep is the closed form's") {
  std::vector<double> throughput;
  for (int n : kWorkers) throughput.push_back(test::run_analytical(point(n)).front().throughput_samples_per_s);
  const sweep::LawFit amdahl = fit(throughput);
  CHECK(amdahl.p == Approx(expected_p()).epsilon(1e-6));
  CHECK(amdahl.r2 == Approx(1.0).epsilon(1e-9));
}

TEST_CASE("Amdahl's p from a SimGrid strong-scaling sweep is within 1 percent of the closed form's") {
  std::vector<double> throughput;
  for (int n : kWorkers) {
    const Scenario s = point(n);
    const Plan plan = compile_plan(s);
    const auto result = test::simulate(s.cluster, plan, Fidelity::Flow);
    throughput.push_back(compute_metrics(plan, result.records, RunInfo{}).throughput_samples_per_s);
  }
  CHECK(fit(throughput).p == Approx(expected_p()).epsilon(0.01));
}
