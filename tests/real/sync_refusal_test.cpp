// dtsim-real executes bsp, asp, ssp and local_sgd: backup workers and gossip (which run in the
// simulator) are refused with exit 2 and a line that says where they do run.
#include <catch2/catch.hpp>

#include "tests/support/mpirun.hpp"

TEST_CASE("dtsim-real refuses backup workers and gossip clearly") {
  for (const std::string policy : {"backup", "gossip"}) {
    const auto r =
        dtsim::test::run_real(2, "tests/real/data/tiny_allreduce.yaml --set sync.policy=" + policy, "refuse-" + policy);
    INFO(r.process.err);
    CHECK(r.process.code == 2);
    CHECK(r.process.err.find("--set sync.policy=" + policy +
                             ": error: sync.policy: dtsim-real runs bsp, asp, ssp and local_sgd "
                             "(backup workers and gossip run in the simulator: dtsim run)") != std::string::npos);
  }
}
