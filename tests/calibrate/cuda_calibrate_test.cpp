// `dtsim calibrate --backend cuda`: the GPU microbenchmarks on a GPU (skipped, saying why, without
// one), the one-line refusal without a device, and cuda profiles (a compute curve per dtype) read
// back and used by the engines for scenarios on GPU devices.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "calibrate/calibrate.hpp"
#include "core/base/error.hpp"
#include "core/calibration/calibration.hpp"
#include "core/calibration/profile_reader.hpp"
#include "core/calibration/profile_writer.hpp"
#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "models/cost/cost_model.hpp"
#include "tests/support/mpirun.hpp"

using namespace dtsim;

namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// Synthetic cuda measurements: per dtype `overhead + F / rate` with the rates of a tensor-core GPU
// (fp32 20, tf32 150, fp16 and bf16 300 TFLOP/s), an NVLink-like exchange, rank 0 on "cuda:0 Test GPU".
CalibrationProfile synthetic_cuda_profile() {
  calib::Measurements m;
  const std::map<std::string, double> rates{{"fp32", 20e12}, {"tf32", 150e12}, {"fp16", 300e12}, {"bf16", 300e12}};
  for (const auto& [dtype, rate] : rates) {
    for (double f = 1e5; f <= 1e11; f *= 10) m.gemm[dtype].push_back(Sample{f, 5e-6 + f / rate});
  }
  for (double s = 8; s <= 1 << 26; s *= 4) m.exchange[kSameHost].push_back(Sample{s, 10e-6 + s / 150e9});
  m.memory = {Sample{1 << 20, 2e-6 + (1 << 20) / 2.5e12}, Sample{1 << 26, 2e-6 + (1 << 26) / 2.5e12},
              Sample{1 << 28, 2e-6 + (1 << 28) / 2.5e12}};
  m.compression["fp16"] = {Sample{1 << 16, 4e-6}, Sample{1 << 20, 5e-6}, Sample{1 << 24, 2e-5}};
  MachineInfo machine = calib::this_machine(Backend::Cuda, 2, 1, true);
  machine.device = "cuda:0 Test GPU";
  return calib::fit_profile(machine, m);
}

std::string write_profile(const CalibrationProfile& p, const std::string& tag) {
  const std::string path = test::temp_dir(tag) + "/profile.yaml";
  std::ofstream(path) << profile_yaml(p);
  return path;
}

}  // namespace

TEST_CASE("the cuda microbenchmarks run on one GPU rank with sane results, or skip and say why", "[cuda][mpi]") {
  const std::string probe = std::string(DTSIM_BINARY_DIR) + "/bin/calibrate_cuda_probe";
  if (!std::filesystem::exists(probe)) {
    WARN("cuda microbenchmarks skipped: dtsim was built without CUDA (no " << probe << ")");
    return;
  }
  const std::string dir = test::temp_dir("calib-cuda-probe");
  const auto r = test::run_mpi(1, "calibrate_cuda_probe", "'" + dir + "/profile.yaml'", "cuda-probe");
  if (r.code == 3) {
    CHECK_THAT(first_line(r.out), Catch::Contains("CUDA"));
    WARN("cuda microbenchmarks skipped: " << first_line(r.out));
    return;
  }
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains(" checks, 0 failed"));
}

TEST_CASE("dtsim calibrate --backend cuda measures every GPU, or exits 3 with one line saying why", "[cuda][mpi]") {
  const std::string profile = test::temp_dir("calib-cuda") + "/profile.yaml";
  const auto r = test::run_mpi(2, "dtsim", "calibrate --backend cuda --quick --out '" + profile + "'", "calib-cuda");
  INFO(r.out << r.err);
  if (r.code == 3) {
    // No device (or one GPU for two ranks), or a dtsim built without CUDA: rank 0 says so, once.
    const std::string line = first_line(r.err);
    CHECK_THAT(line, Catch::StartsWith("dtsim: error: "));
    CHECK_THAT(line, Catch::Contains("CUDA"));
    CHECK(r.err.find(line, line.size()) == std::string::npos);
    CHECK(!std::filesystem::exists(profile));
    WARN("dtsim calibrate --backend cuda skipped: " << line);
    return;
  }
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("busbw (GB/s)"));
  const auto p = load_calibration_profile(profile, Backend::Cuda);
  CHECK_THAT(p->machine.device, Catch::StartsWith("cuda:0 "));
  for (const char* dtype : {"fp32", "tf32", "fp16", "bf16"}) CHECK(p->compute.count(dtype) == 1);
  CHECK(p->link(kSameHost) != nullptr);
  CHECK(p->compression.count("topk") == 1);
}

TEST_CASE("a cuda profile keeps a compute curve per dtype and reads back only as cuda", "[profile][cuda]") {
  const CalibrationProfile p = synthetic_cuda_profile();
  const std::string path = write_profile(p, "profile-cuda");
  const auto q = load_calibration_profile(path, Backend::Cuda);
  CHECK(q->machine.backend == Backend::Cuda);
  CHECK(q->machine.device == "cuda:0 Test GPU");
  REQUIRE(q->compute.size() == 4);
  // Each dtype costs its own curve (the fits are exact on these samples).
  CHECK(q->compute_time(Dtype::Fp32, 1e10, 0) == Approx(5e-6 + 1e10 / 20e12).epsilon(1e-4));
  CHECK(q->compute_time(Dtype::Tf32, 1e10, 0) == Approx(5e-6 + 1e10 / 150e12).epsilon(1e-4));
  CHECK(q->compute_time(Dtype::Fp16, 1e10, 0) == Approx(5e-6 + 1e10 / 300e12).epsilon(1e-4));
  CHECK(q->compute_time(Dtype::Bf16, 1e10, 0) == Approx(5e-6 + 1e10 / 300e12).epsilon(1e-4));
  CHECK(q->memory_bandwidth == Approx(2.5e12).epsilon(1e-4));
  try {
    load_calibration_profile(path, Backend::Cpu);
    FAIL("a cuda profile was accepted as a cpu one");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("machine.backend: the profile was measured with backend 'cuda' but 'cpu' "
                                         "was asked for (calibrate with: dtsim calibrate --backend cpu)"));
  }
}

TEST_CASE("a cuda profile in cluster.calibration costs a GPU scenario's compute by dtype", "[calibrated][cuda]") {
  const std::string path = write_profile(synthetic_cuda_profile(), "profile-cuda-scenario");
  const Scenario s = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/tests/calibrate/data/ring2.yaml",
                                   {"cluster.device=h100_sxm", "cluster.calibration=" + path});
  REQUIRE(s.cluster.calibration);
  CHECK(s.cluster.calibration->machine.backend == Backend::Cuda);
  const Plan plan = compile_plan(s);
  const cost::CostModel costs(s.cluster, plan);
  const RankProgram& rank = plan.ranks[0];
  // The profile's curves, not the H100's peak and efficiency from the device zoo.
  CHECK(costs.compute_time(rank, ComputeOp{1e10, 0, Dtype::Bf16}) == Approx(5e-6 + 1e10 / 300e12).epsilon(1e-4));
  CHECK(costs.compute_time(rank, ComputeOp{1e10, 0, Dtype::Fp32}) == Approx(5e-6 + 1e10 / 20e12).epsilon(1e-4));
  // A ring AllReduce of 8 MB over the 2 GPUs: 2 rounds of 4 MB on the fitted same_host link.
  const CollectiveAlgorithm& ring = find_algorithm("ring");
  CHECK(costs.collective_time(CollectiveOp{CollectiveKind::AllReduce, 8e6, 0, &ring, 0}) ==
        Approx(2 * (10e-6 + 4e6 / 150e9)).epsilon(1e-3));
}

TEST_CASE("dtsim validate --backend cuda runs dtsim-real --backend cuda, or passes its exit 3 on", "[cuda][mpi]") {
  const std::string dir = test::temp_dir("validate-cuda");
  const std::string profile = write_profile(synthetic_cuda_profile(), "validate-cuda-profile");
  const auto r = test::run_dtsim(
      "validate tests/calibrate/data/tiny_validate.yaml --backend cuda --set "
      "cluster.device=h100_sxm --calibration '" +
          profile + "' --mpirun '" + DTSIM_MPIEXEC + " --oversubscribe' --out '" + dir + "'",
      "validate-cuda");
  INFO(r.out << r.err);
  CHECK_THAT(first_line(r.out),
             Catch::Contains("dtsim-real' 'tests/calibrate/data/tiny_validate.yaml' --backend cuda"));
  if (r.code == 3) {
    CHECK_THAT(r.out, Catch::Contains("dtsim-real: error: "));
    WARN("dtsim validate --backend cuda skipped: " << first_line(r.out.substr(r.out.find("dtsim-real: error: "))));
    return;
  }
  REQUIRE(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(test::slurp(dir + "/validation.json"));
  CHECK(j.at("backend") == "cuda");
  const nlohmann::json real = nlohmann::json::parse(test::slurp(dir + "/real/metrics.json"));
  CHECK(real.at("engine") == "cuda");
}

TEST_CASE("both engines run a GPU scenario on a cuda profile alike, each dtype on its own curve",
          "[calibrated][cuda][simgrid]") {
  const std::string profile = write_profile(synthetic_cuda_profile(), "profile-cuda-engines");
  const auto iteration = [&](const std::string& engine, const char* dtype) {
    const std::string tag = "cuda-" + engine + "-" + dtype;
    const auto r = test::run_dtsim(
        "run tests/calibrate/data/ring2.yaml --no-trace --json --engine " + engine + " --out '" + test::temp_dir(tag) +
            "' --set cluster.device=h100_sxm --set cluster.calibration='" + profile + "' --set model.dtype=" + dtype,
        tag);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out).at("iteration_time_s").at("mean").get<double>();
  };
  const double bf16 = iteration("analytical", "bf16");
  CHECK(iteration("simgrid", "bf16") == Approx(bf16).epsilon(0.01));
  // 8 compute ops of 1 and 2 MFLOP: 4 (5 us + 1 MFLOP / R) + 4 (5 us + 2 MFLOP / R) per dtype's rate R.
  const double fp32 = iteration("analytical", "fp32");
  CHECK(fp32 - bf16 == Approx(12e6 / 20e12 - 12e6 / 300e12).epsilon(0.01));
}

TEST_CASE("a one-GPU measurement (the probe's) fits and reads back: collectives of one rank cost nothing",
          "[profile][cuda]") {
  // On one rank NCCL's collectives are copies: busbw is 0 (factor (n - 1) / n) and the ring's
  // closed form has no rounds; the stand-in link is what the probe adds for the reader.
  calib::Measurements m;
  for (double f = 1e4; f <= 1e10; f *= 10) m.gemm["fp16"].push_back(Sample{f, 4e-6 + f / 2e14});
  for (double f = 1e4; f <= 1e10; f *= 10) m.gemm["fp32"].push_back(Sample{f, 4e-6 + f / 4e13});
  m.memory = {Sample{1 << 20, 5e-6}, Sample{1 << 24, 1.2e-5}, Sample{1 << 26, 3.5e-5}};
  m.exchange[kSameHost] = {Sample{8, 2e-6}, Sample{1e6, 1.02e-4}, Sample{1e7, 1.002e-3}};
  m.collectives.push_back(CollectiveSample{"allreduce", "ring", 1, 1 << 20, 3e-6, (1 << 20) / 3e-6, 0, 0});
  m.collectives.push_back(CollectiveSample{"allgather", "ring", 1, 1 << 20, 3e-6, (1 << 20) / 3e-6, 0, 0});
  const CalibrationProfile p = calib::fit_profile(calib::this_machine(Backend::Cuda, 1, 1, true), m);
  REQUIRE(p.collectives.size() == 2);
  CHECK(p.collectives[0].predicted == 0);
  const auto q = load_calibration_profile(write_profile(p, "profile-cuda-one"), Backend::Cuda);
  CHECK(q->machine.ranks == 1);
  CHECK(q->compute.size() == 2);
  CHECK(q->collectives.size() == 2);
  CHECK(q->collectives[1].busbw == 0);
}
