// The optimizer step's cost against apex's fused kernels: the elements each reads and writes per
// parameter (fp32), and the state copies the memory estimate keeps.
#include <catch2/catch.hpp>

#include "core/plan/worker.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/tiny_job.hpp"

using namespace dtsim;

TEST_CASE("an optimizer step moves what apex's fused kernel moves") {
  struct Case {
    Optimizer o;
    double states;
    double bytes_per_param;  // 4 bytes x (reads + writes)
  };
  const Case cases[] = {
      {Optimizer::Sgd, 0, 4.0 * (2 + 1)},       // read w, g; write w
      {Optimizer::Momentum, 1, 4.0 * (3 + 2)},  // read g, w, v; write w, v
      {Optimizer::Adam, 2, 4.0 * (4 + 3)},      // read g, w, m, v; write w, m, v
      {Optimizer::Lamb, 2, 4.0 * (8 + 4)},      // stage 1, two norms, stage 2 (multi_tensor_lamb.cu)
  };
  for (const Case& c : cases) {
    const UpdateOp u = make_update(1e6, c.o);
    CHECK(optimizer_state_copies(c.o) == c.states);
    CHECK(u.mem_bytes == Approx(1e6 * c.bytes_per_param));
    CHECK(u.params == 1e6);
  }
  // More work never costs less: LAMB's step above Adam's above momentum's above SGD's.
  CHECK(make_update(1, Optimizer::Lamb).flops > make_update(1, Optimizer::Adam).flops);
  const Scenario s = load_scenario_text(test::kTinyJob, "t.yaml", {"model.optimizer=lamb"});
  CHECK(s.jobs.front().model.optimizer == Optimizer::Lamb);
}
