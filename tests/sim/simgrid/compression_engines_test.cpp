// Compressed exchanges on SimGrid agree with the analytical engine on an uncontended network, and
// with a calibration profile time compress and decompress ops by its measured kernels.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <utility>

#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/compression_profile.hpp"
#include "tests/support/run_analytical.hpp"
#include "tests/support/simulate.hpp"

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

TEST_CASE("with a profile, SimGrid times compress and decompress ops by the measured kernel as well") {
  // tests/calibrate/data/ring2.yaml: 1e5 fp32 parameters on 2 ranks of one host, one 400 KB bucket.
  const double n = 1e5, rate = 2e9;
  const std::string profile = test::compression_profile(
      (std::filesystem::temp_directory_path() / "dtsim_codec_engines" / "profile.yaml").string(), {"topk", "sign"},
      rate);
  // The decompress ops' kernel bytes: 4 n times the model's decode over compress traffic (2 payloads).
  const double topk_ratio = (4 * n + 2 * 1000 * 16) / (20 * n + 8 * 1000);
  const double sign_payload = std::ceil(n / 8) + 4;
  const double sign_ratio = (2 * sign_payload + 4 * n) / (8 * n + sign_payload);
  for (const auto& [method, ratio] : {std::pair<const char*, double>{"topk", topk_ratio}, {"sign", sign_ratio}}) {
    INFO(method);
    const Scenario s = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/tests/calibrate/data/ring2.yaml",
                                     {"cluster.calibration=" + profile, "strategy.allreduce.bucket_size=400KB",
                                      std::string("compression.method=") + method});
    const Plan plan = compile_plan(s);
    const auto result = test::simulate(s.cluster, plan, Fidelity::Step);
    const double compress = test::kernel_time(4 * n, rate) + test::feedback_time(n);
    const double decompress = test::kernel_time(4 * n * ratio, rate);
    int seen = 0;
    for (const OpRecord& r : result.records) {
      const std::string& label = plan.ranks[r.rank].ops[r.op].label;
      if (label.rfind("compress", 0) == 0) {
        CHECK(r.end - r.start == Approx(compress).epsilon(0.01));
        ++seen;
      } else if (label.rfind("decompress", 0) == 0) {
        CHECK(r.end - r.start == Approx(decompress).epsilon(0.01));
        ++seen;
      }
    }
    CHECK(seen >= 4);
    const double expected = test::run_analytical(s).front().iteration_time.mean;
    const double got = compute_metrics(plan, result.records, RunInfo{"simgrid", "step", 0}).iteration_time.mean;
    CHECK(got == Approx(expected).epsilon(0.01));
  }
}
