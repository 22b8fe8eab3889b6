// Stragglers: a slow worker sets a BSP job's pace; jitter is seeded and reproducible.
#include <catch2/catch.hpp>

#include "core/base/error.hpp"
#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/run_analytical.hpp"

using namespace dtsim;

namespace {

Metrics run(std::vector<std::string> sets) {
  return test::run_analytical(load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml", sets))
      .front();
}

}  // namespace

TEST_CASE("one worker k times slower makes a BSP iteration k times the compute plus communication") {
  const std::vector<std::string> no_overlap{"strategy.allreduce.overlap=false", "run.iterations=3"};
  const Metrics base = run(no_overlap);
  const double compute = base.ranks[0].compute_s;
  const double comm = base.ranks[0].exposed_comm_s;
  CHECK(base.iteration_time.mean == Approx(compute + comm));
  for (double k : {2.0, 3.0, 5.0}) {
    auto sets = no_overlap;
    sets.push_back("stragglers.slow_workers=5");
    sets.push_back("stragglers.slow_factor=" + std::to_string(k));
    const Metrics m = run(sets);
    INFO("k = " << k);
    CHECK(m.iteration_time.mean == Approx(k * compute + comm).epsilon(1e-9));
    CHECK(m.ranks[5].wait_s == Approx(0).margin(1e-12));                  // the straggler never waits
    CHECK(m.ranks[0].wait_s == Approx((k - 1) * compute).epsilon(1e-9));  // everyone else waits for it
  }
}

TEST_CASE("jitter is seeded: the same seed gives the same run and another seed another") {
  const std::vector<std::string> jitter{"stragglers.jitter=lognormal", "stragglers.sigma=0.3", "run.iterations=20"};
  auto with_seed = [&](int seed) {
    auto sets = jitter;
    sets.push_back("run.seed=" + std::to_string(seed));
    return run(sets).iteration_time;
  };
  const Stats a = with_seed(7), b = with_seed(7), c = with_seed(8);
  CHECK(a.mean == b.mean);
  CHECK(a.p99 == b.p99);
  CHECK(a.mean != c.mean);
  CHECK(a.p99 > a.p50);  // iterations differ from one another
}

TEST_CASE("hiccups of probability 1 slow every iteration by their factor") {
  const Metrics base = run({"strategy.allreduce.overlap=false"});
  const Metrics hic = run({"strategy.allreduce.overlap=false", "stragglers.jitter=hiccup",
                           "stragglers.hiccup_probability=1", "stragglers.hiccup_factor=2"});
  CHECK(hic.iteration_time.mean == Approx(2 * base.ranks[0].compute_s + base.ranks[0].exposed_comm_s));
}

TEST_CASE("a slow worker that does not exist is refused") {
  try {
    run({"stragglers.slow_workers=3,8"});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "--set stragglers.slow_workers=3,8: error: stragglers.slow_workers: worker 8 does not exist (the job has "
          "workers 0..7)");
  }
}
