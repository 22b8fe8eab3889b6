// comm_holds_cores (models/cost/cost_model.hpp): with a cpu-backend profile, communication is
// work of the ranks' cores, so a bucket's AllReduce overlapped with the backward pass waits until
// the backward pass is done; with a profile whose communication leaves the cores alone (cuda) it
// runs beside the compute. Closed forms on the hand-made profile, on both engines.
#include <catch2/catch.hpp>

#include "tests/support/calibrated_fixtures.hpp"

using namespace dtsim;

TEST_CASE("on a cpu profile an overlapped AllReduce waits for the backward pass, on a cuda profile it overlaps",
          "[calibrated][simgrid]") {
  // 2 ranks, 4 buckets of 100 KB (one per layer), each a ring AllReduce of 2 rounds of 50 KB.
  const double bucket = 2 * test::link_time(50e3);
  REQUIRE(bucket < test::kBackwardOp);  // overlapped, every bucket but the last hides behind a layer
  const std::string overlap = "--set strategy.allreduce.overlap=true";
  const std::string cuda = test::edited_profile("holds-cuda", "  backend: cpu", "  backend: cuda");
  for (const char* engine : {"analytical", "simgrid"}) {
    INFO(engine);
    const auto cores = test::run_calibrated(test::kCalibScenario, engine, overlap, std::string("holds-cpu-") + engine);
    CHECK(cores.iteration == Approx(test::kCompute + 4 * bucket + test::kUpdate).epsilon(1e-3));
    const auto beside =
        test::run_calibrated(test::kCalibScenario, engine, overlap + " --set cluster.calibration='" + cuda + "'",
                             std::string("holds-cuda-") + engine);
    CHECK(beside.iteration == Approx(test::kCompute + bucket + test::kUpdate).epsilon(1e-3));
    // Without overlap the two profiles agree: nothing runs beside the compute to begin with.
    const auto plain = test::run_calibrated(test::kCalibScenario, engine, "--set cluster.calibration='" + cuda + "'",
                                            std::string("holds-plain-") + engine);
    CHECK(plain.iteration == Approx(test::kCompute + 4 * bucket + test::kUpdate).epsilon(1e-3));
  }
}

TEST_CASE("cluster.contention.compute 1 lets communication run beside compute on a cpu profile too",
          "[calibrated][simgrid]") {
  const double bucket = 2 * test::link_time(50e3);
  for (const char* engine : {"analytical", "simgrid"}) {
    INFO(engine);
    const auto off = test::run_calibrated(test::kCalibScenario, engine,
                                          "--set strategy.allreduce.overlap=true --set cluster.contention.compute=1",
                                          std::string("holds-off-") + engine);
    CHECK(off.iteration == Approx(test::kCompute + bucket + test::kUpdate).epsilon(1e-3));
  }
}

TEST_CASE("a cuda profile's measured contention slows the compute that communication overlaps",
          "[calibrated][simgrid]") {
  // Measured: the GEMM op 2 ms alone, 2.5 ms beside AllReduces: compute keeps 0.8 of its rate.
  const std::string measured =
      "measurements:\n  contention: {gemm_flops: 1e9, collective_bytes: 4194304, gemm_alone_s: [0.002, 0.0021, "
      "0.0019], collective_alone_s: [0.001], gemm_under_comm_s: [0.0025, 0.0026, 0.0024], collective_under_gemm_s: "
      "[0.00125], both_s: [0.0027]}\n";
  const std::string cuda =
      test::edited_profile("contention-cuda", {{"  backend: cpu", "  backend: cuda"}, {"measurements:\n", measured}});
  const double bucket = 2 * test::link_time(50e3);
  const double f = 0.8;
  for (const char* engine : {"analytical", "simgrid"}) {
    INFO(engine);
    // Three buckets overlap the next layer's backward op, which runs at f of its rate beside them:
    // each op lasts bucket (1 - f) longer; the last bucket is exposed.
    const auto slowed = test::run_calibrated(
        test::kCalibScenario, engine, "--set strategy.allreduce.overlap=true --set cluster.calibration='" + cuda + "'",
        std::string("contention-cuda-") + engine);
    CHECK(slowed.iteration == Approx(test::kCompute + 3 * bucket * (1 - f) + bucket + test::kUpdate).epsilon(1e-3));
    // cluster.contention.compute, when set, is the scenario's word over the profile's.
    const auto set = test::run_calibrated(
        test::kCalibScenario, engine,
        "--set strategy.allreduce.overlap=true --set cluster.contention.compute=1 --set cluster.calibration='" + cuda +
            "'",
        std::string("contention-cuda-set-") + engine);
    CHECK(set.iteration == Approx(test::kCompute + bucket + test::kUpdate).epsilon(1e-3));
  }
}
