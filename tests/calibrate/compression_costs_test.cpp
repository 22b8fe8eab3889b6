// With cluster.calibration, compress and decompress ops of a method whose kernel the profile measured
// take the kernel's fitted curve on the analytical engine (held to closed forms here; SimGrid to the
// same in tests/sim/simgrid/compression_engines_test.cpp); other methods keep the model's cost.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/run/observer.hpp"
#include "core/scenario/loader.hpp"
#include "sim/analytical/engine.hpp"
#include "tests/support/compression_profile.hpp"
#include "tests/support/run_process.hpp"

using namespace dtsim;

namespace {

const std::string kScenario = std::string(DTSIM_SOURCE_DIR) + "/tests/calibrate/data/ring2.yaml";
// ring2.yaml: 1e5 fp32 parameters on 2 ranks, one 400 KB bucket.
constexpr double kN = 1e5;

std::string profile(const std::string& tag, const std::vector<std::string>& kernels, double rate = 2e9) {
  return test::compression_profile(test::temp_dir("codec-" + tag) + "/profile.yaml", kernels, rate);
}

struct Run {
  Plan plan;
  std::vector<OpRecord> records;
};

Run run(const std::string& profile_path, std::vector<std::string> sets) {
  sets.push_back("cluster.calibration=" + profile_path);
  const Scenario s = load_scenario(kScenario, sets);
  Run r{compile_plan(s), {}};
  Recorder rec;
  analytical::AnalyticalExecutor(s.cluster).run(r.plan, rec);
  r.records = rec.records();
  return r;
}

// Durations of the ops whose label starts with `prefix`, every rank and iteration.
std::vector<double> durations(const Run& r, const std::string& prefix) {
  std::vector<double> out;
  for (const OpRecord& rec : r.records) {
    if (r.plan.ranks[rec.rank].ops[rec.op].label.rfind(prefix, 0) == 0) out.push_back(rec.end - rec.start);
  }
  return out;
}

void check_all(const std::vector<double>& got, double expected) {
  REQUIRE(got.size() >= 2);
  for (double d : got) CHECK(d == Approx(expected).epsilon(1e-12));
}

double iteration_time(const Run& r) {
  return compute_metrics(r.plan, r.records, RunInfo{"analytical", "", 0}).iteration_time.mean;
}

}  // namespace

TEST_CASE("a measured top-k kernel times compress and decompress ops exactly", "[calibrated][compression]") {
  const std::string p = profile("topk", {"topk"});
  const std::vector<std::string> sets{"strategy.allreduce.bucket_size=400KB", "compression.method=topk"};
  // Compress: the curve at the gradient's 4 n bytes; error feedback on sgd_step's curve besides.
  const Run plain = run(p, {sets[0], sets[1], "compression.error_feedback=false"});
  check_all(durations(plain, "compress topk"), test::kernel_time(4 * kN, 2e9));
  const Run fed = run(p, sets);
  check_all(durations(fed, "compress topk"), test::kernel_time(4 * kN, 2e9) + test::feedback_time(kN));
  // Decompress of the 2 gathered payloads of k = 1000 pairs: the curve at 4 n bytes times the model's
  // traffic ratio, decode (n 4 + 2 k (8 + 2 x 4)) over top-k's compress without feedback (5 n 4 + 8 k).
  const double k = 1000;
  const double ratio = (4 * kN + 2 * k * 16) / (20 * kN + 8 * k);
  check_all(durations(fed, "decompress topk"), test::kernel_time(4 * kN * ratio, 2e9));
  // compression.cost_scale scales the measured cost too.
  const Run half = run(p, {sets[0], sets[1], "compression.cost_scale=0.5"});
  check_all(durations(half, "compress topk"), 0.5 * (test::kernel_time(4 * kN, 2e9) + test::feedback_time(kN)));
}

TEST_CASE("a measured decompress curve times decompress ops, compress keeps its own", "[calibrated][compression]") {
  // topk_decompress (one payload decoded from a gradient of x bytes) times the decompress of the 2
  // gathered payloads at 4 n bytes times the model's decode traffic for 2 payloads over that for 1:
  // (n 4 + 2 k (8 + 2 x 4)) / (n 4 + k (8 + 2 x 4)).
  const std::string p = profile("topk-decode", {"topk", "topk_decompress"});
  const Run r =
      run(p, {"strategy.allreduce.bucket_size=400KB", "compression.method=topk", "compression.error_feedback=false"});
  const double k = 1000;
  const double decode = 4 * kN * (4 * kN + 2 * k * 16) / (4 * kN + k * 16);
  check_all(durations(r, "decompress topk"), test::kernel_time(decode, 2e9));
  check_all(durations(r, "compress topk"), test::kernel_time(4 * kN, 2e9));
  // The derived cost (compress curve at 4 n times decode over compress traffic) is not what it took.
  CHECK(test::kernel_time(4 * kN * (4 * kN + 2 * k * 16) / (20 * kN + 8 * k), 2e9) !=
        Approx(test::kernel_time(decode, 2e9)).epsilon(0.01));
}

TEST_CASE("the cast kernels time fp16 and bf16 compress ops", "[calibrated][compression]") {
  const std::string p = profile("casts", {"fp16", "bf16"}, 4e9);
  for (const char* method : {"fp16", "bf16"}) {
    INFO(method);
    const Run r = run(p, {"strategy.allreduce.bucket_size=400KB", std::string("compression.method=") + method});
    // No error feedback for casts; decoding back reads 2 and writes 4 bytes, as the cast wrote: ratio 1.
    check_all(durations(r, std::string("compress ") + method), test::kernel_time(4 * kN, 4e9));
    check_all(durations(r, std::string("decompress ") + method), test::kernel_time(4 * kN, 4e9));
  }
}

TEST_CASE("a parameter server's pushes and decodes take the int8 kernel", "[calibrated][compression]") {
  const std::string p = profile("int8", {"int8"});
  const Run r =
      run(p, {"strategy.kind=parameter_server", "cluster.servers.placement=colocated", "compression.method=int8"});
  check_all(durations(r, "compress int8"), test::kernel_time(4 * kN, 2e9) + test::feedback_time(kN));
  // The BSP server decodes both pushes: int8's decode traffic n (2 + 4) over its compress traffic 9 n.
  check_all(durations(r, "decompress int8"), test::kernel_time(4 * kN * 6 / 9, 2e9));
}

TEST_CASE("methods whose kernel the profile lacks keep the model's cost", "[calibrated][compression]") {
  const std::string p = profile("only-topk", {"topk"});
  // sign: 3 n FLOPs plus error feedback's 2 n, on the profile's compute curve (10 us + F / 10 GFLOP/s).
  const Run sign = run(p, {"strategy.allreduce.bucket_size=400KB", "compression.method=sign"});
  check_all(durations(sign, "compress sign"), 10e-6 + 5 * kN / 1e10);
  // PowerSGD's steps are GEMMs: never a kernel, always the compute curve.
  const Run psgd = run(
      p, {"strategy.allreduce.bucket_size=400KB", "compression.method=powersgd", "compression.error_feedback=false"});
  const double m = std::ceil(std::sqrt(kN)), cols = std::ceil(kN / m);
  check_all(durations(psgd, "compress powersgd"), 10e-6 + 2 * m * cols * 4 / 1e10);
}

TEST_CASE("doubling a kernel's fitted bandwidth never makes an iteration slower", "[calibrated][compression]") {
  const std::vector<std::string> all{"topk", "randomk", "int8", "qsgd", "sign", "fp16", "bf16"};
  struct Case {
    std::string method;
    bool ps;
  };
  const std::vector<Case> cases{{"topk", false}, {"randomk", false}, {"sign", false}, {"fp16", false},
                                {"bf16", false}, {"int8", true},     {"qsgd", true},  {"topk", true},
                                {"sign", true},  {"randomk", true}};
  int i = 0;
  for (double rate : {1e8, 1e9, 1e10}) {
    const std::string slow = profile(fmt::format("inv-{}", i++), all, rate);
    const std::string fast = profile(fmt::format("inv-{}", i++), all, 2 * rate);
    for (const Case& c : cases) {
      for (const char* bucket : {"100KB", "400KB"}) {
        std::vector<std::string> sets{"compression.method=" + c.method,
                                      std::string("strategy.allreduce.bucket_size=") + bucket,
                                      "strategy.allreduce.overlap=true", "cluster.devices_per_node=4"};
        if (c.ps) {
          sets.insert(sets.end(), {"strategy.kind=parameter_server", "cluster.servers.placement=colocated"});
        }
        INFO(c.method << (c.ps ? " (parameter server)" : "") << ", " << bucket << ", rate " << rate);
        const double before = iteration_time(run(slow, sets));
        const double after = iteration_time(run(fast, sets));
        CHECK(after <= before * (1 + 1e-12));
        CHECK(after > 0);
      }
    }
  }
}

TEST_CASE("a bad compression kernel in a profile stops a run with exit code 2", "[calibrated][compression][cli]") {
  const std::string p = profile("bad", {"top_k"});
  const auto r = test::run_dtsim(
      "run tests/calibrate/data/ring2.yaml --no-trace --set compression.method=topk "
      "--set cluster.calibration='" +
          p + "' --out '" + test::temp_dir("codec-bad-out") + "'",
      "codec-bad");
  CHECK(r.code == 2);
  CHECK_THAT(
      r.err,
      Catch::Contains(
          p + ":27:5: error: fitted.compression.top_k: 'top_k' is not known here (valid: "
              "bf16, bf16_decompress, fp16, fp16_decompress, int8, int8_decompress, qsgd, qsgd_decompress, randomk, "
              "randomk_decompress, sign, sign_decompress, topk, topk_decompress)"));
}
