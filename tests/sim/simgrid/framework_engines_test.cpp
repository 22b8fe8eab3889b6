// The framework's own costs (framework.*) on both engines against their closed forms: host work
// per iteration adds its seconds to every iteration, a collective's launch cost adds to each
// collective on the critical path, and no kernel is shorter than the host's time to issue it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "models/cost/cost_model.hpp"
#include "tests/support/both_engines.hpp"
#include "tests/support/hybrid_job.hpp"
#include "tests/support/tiny_job.hpp"

using namespace dtsim;

namespace {

using Both = test::BothEngines;

Both iteration(const Scenario& s) { return test::iteration_on_both(s); }

Scenario tiny(std::vector<std::string> sets) {
  sets.push_back("run.iterations=3");
  sets.push_back("run.warmup=1");
  return load_scenario_text(test::kTinyJob, "t.yaml", sets);
}

}  // namespace

TEST_CASE("framework.iteration_overhead adds its seconds to every iteration, on both engines") {
  const std::vector<std::vector<std::string>> jobs{{"strategy.allreduce.overlap=false"},
                                                   {"strategy.kind=parameter_server"}};
  for (const auto& job : jobs) {
    INFO(job.front());
    const Both base = iteration(tiny(job));
    auto with = job;
    with.push_back("framework.iteration_overhead=3ms");
    const Both more = iteration(tiny(with));
    CHECK(more.analytical - base.analytical == Approx(3e-3).epsilon(1e-6));
    CHECK(more.simgrid - base.simgrid == Approx(3e-3).epsilon(1e-3));
  }
  // A hybrid job's ranks each start their iteration after it too.
  const Both h0 = iteration(test::hybrid_job({"strategy.tensor=2", "strategy.pipeline=2", "strategy.global_batch=4"}));
  const Both h1 = iteration(test::hybrid_job(
      {"strategy.tensor=2", "strategy.pipeline=2", "strategy.global_batch=4", "framework.iteration_overhead=2ms"}));
  CHECK(h1.analytical - h0.analytical == Approx(2e-3).epsilon(1e-3));
  CHECK(h1.simgrid - h0.simgrid == Approx(2e-3).epsilon(1e-2));
}

TEST_CASE("framework.collective_launch adds to each collective, framework.kernel_launch floors each kernel") {
  // One layer, overlap off: forward, backward, one AllReduce, the optimizer step, one after the other.
  const std::vector<std::string> serial{"strategy.allreduce.overlap=false"};
  const Both base = iteration(tiny(serial));
  auto launch = serial;
  launch.push_back("framework.collective_launch=40us");
  const Both launched = iteration(tiny(launch));
  CHECK(launched.analytical - base.analytical == Approx(40e-6).epsilon(1e-6));
  CHECK(launched.simgrid - base.simgrid == Approx(40e-6).epsilon(1e-3));
  // 1 GFLOP per sample x 32 samples on an A100 at 0.5 of 19.5 TFLOPS takes ms: a 5 us floor changes nothing.
  auto floor = serial;
  floor.push_back("framework.kernel_launch=5us");
  CHECK(iteration(tiny(floor)).analytical == Approx(base.analytical).epsilon(1e-12));
  // At 1 sample of 1 kFLOP the forward, backward and optimizer kernels are each far below 1 ms: each takes 1 ms.
  const std::vector<std::string> small{"strategy.allreduce.overlap=false", "model.batch_per_worker=1",
                                       "model.synthetic.flops_per_sample=1000", "model.synthetic.params=1000"};
  const Both quick = iteration(tiny(small));
  auto slow = small;
  slow.push_back("framework.kernel_launch=1ms");
  const Both floored = iteration(tiny(slow));
  CHECK(floored.analytical - quick.analytical == Approx(3e-3).epsilon(1e-3));
  CHECK(floored.simgrid == Approx(floored.analytical).epsilon(1e-3));
}

TEST_CASE("framework times must not be negative") {
  CHECK_THROWS_WITH(
      tiny({"framework.kernel_launch=-5us"}),
      Catch::Contains("framework.kernel_launch: '-5us' is outside what is physically meaningful: from 0 to 1e9 s"));
}
