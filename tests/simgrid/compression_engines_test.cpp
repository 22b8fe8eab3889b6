// Compressed exchanges on SimGrid agree with the analytical engine on an uncontended network.
#include <catch2/catch.hpp>

#include "models/metrics.hpp"
#include "models/plan_compiler.hpp"
#include "models/scenario_loader.hpp"
#include "../sim/run_analytical.hpp"
#include "simulate.hpp"

using namespace dtsim;

namespace {

// Four nodes of one GPU on a star, no overlap: nothing shares a link or a device.
const char* const kJob = R"(name: compressed
model:
  name: synthetic
  synthetic: {params: 5e7, flops_per_sample: 20GFLOP, layers: 8}
  batch_per_worker: 16
cluster:
  nodes: 4
  device: a100_80gb
  nic: {rate: 25Gbps, latency: 5us}
strategy:
  allreduce: {bucket_size: 50MB, overlap: false}
run: {iterations: 2, warmup: 0}
)";

}  // namespace

TEST_CASE("both engines agree on compressed exchanges") {
  for (const char* method : {"fp16", "qsgd", "topk", "sign", "powersgd"}) {
    const Scenario s = load_scenario_text(kJob, "x.yaml", {std::string("compression.method=") + method});
    const Plan plan = compile_plan(s);
    const double expected = test::run_analytical(s).front().iteration_time.mean;
    const auto result = test::simulate(s.cluster, plan, Fidelity::Flow);
    const double got = compute_metrics(plan, result.records, RunInfo{"simgrid", "flow", 0}).iteration_time.mean;
    INFO(method << ": analytical " << expected << " s, simgrid " << got << " s");
    CHECK(got == Approx(expected).epsilon(0.02));
  }
}
