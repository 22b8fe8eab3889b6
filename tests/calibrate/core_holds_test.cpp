// comm_holds_cores (sim/cost/cost_model.hpp): with a cpu-backend profile, communication is
// work of the ranks' cores, so a bucket's AllReduce overlapped with the backward pass waits until
// the backward pass is done; with a profile whose communication leaves the cores alone (cuda) it
// runs beside the compute. Closed forms on the hand-made profile, on both engines.
#include <catch2/catch.hpp>

#include "tests/support/calibrated_fixtures.hpp"

using namespace dtsim;

TEST_CASE("on a cpu profile an overlapped AllReduce waits for the backward pass; on a cuda profile it overlaps",
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
