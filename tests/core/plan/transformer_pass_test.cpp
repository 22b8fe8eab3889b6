// A transformer-shaped model in a data-parallel plan runs each row of its table as the kernels that
// make it up (core/plan/transformer_pass.hpp): the kernels do the table's work (FLOPs within 1 %), each
// costs by its class, and a row's gradients are ready when its last backward kernel ends.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "core/plan/compiler.hpp"
#include "tests/support/hybrid_job.hpp"

using namespace dtsim;

namespace {

Scenario data_parallel(std::vector<std::string> sets) {
  sets.push_back("strategy.kind=allreduce");
  sets.push_back("model.batch_per_worker=2");
  return test::hybrid_job(sets);
}

}  // namespace

TEST_CASE("a data-parallel transformer's rows run as their kernels and do the table's work") {
  for (const char* flash : {"true", "false"}) {
    INFO("flash_attention " << flash);
    const Scenario s = data_parallel({std::string("model.transformer.flash_attention=") + flash});
    const JobSpec& job = s.jobs.front();
    const Plan plan = compile_plan(s);
    const RankProgram& r = plan.ranks.front();
    std::map<int, double> fwd;
    std::map<int, double> bwd;
    std::map<int, int> last_backward;
    std::map<KernelClass, int> classes;
    for (const Op& op : r.ops) {
      const auto* c = std::get_if<ComputeOp>(&op.body);
      if (!c || (op.phase != Phase::Forward && op.phase != Phase::Backward)) continue;
      REQUIRE(op.layer >= 0);
      (op.phase == Phase::Forward ? fwd : bwd)[op.layer] += c->flops;
      if (op.phase == Phase::Backward) last_backward[op.layer] = op.id;
      ++classes[c->cls];
    }
    const auto& rows = job.workload.layers;
    double table_fwd = 0;
    double kernel_fwd = 0;
    double table_bwd = 0;
    double kernel_bwd = 0;
    for (size_t l = 0; l < rows.size(); ++l) {
      table_fwd += rows[l].fwd_flops * 2;
      table_bwd += rows[l].bwd_flops * 2;
      kernel_fwd += fwd[static_cast<int>(l)];
      kernel_bwd += bwd[static_cast<int>(l)];
    }
    // The kernels add the FLOPs of norms, softmax and activations the table leaves out (under 1 %). The table
    // counts the causal half of the attention core (2 s^2 d per sequence and block); unfused attention computes
    // all of it, forward and backward, and flash attention's backward recomputes the scores (2.5 x its forward).
    const bool fused = std::string(flash) == "true";
    const double core = 8 * 2.0 * 256 * 256 * 512 * 2;  // 8 blocks, 2 sequences
    CHECK(kernel_fwd == Approx(table_fwd + (fused ? 0 : core)).epsilon(0.01));
    CHECK(kernel_bwd == Approx(table_bwd + (fused ? core / 2 : 2 * core)).epsilon(0.01));
    CHECK(classes[KernelClass::Gemm] > 0);
    CHECK(classes[KernelClass::Norm] > 0);
    CHECK(classes[KernelClass::Layer] == 0);
    CHECK(classes[KernelClass::Attention] == (fused ? 16 : 0));  // 8 blocks, fwd and bwd
    // Every row's gradients wait for its last backward kernel: the gradient reductions depend on them.
    for (const Op& op : r.ops) {
      if (!std::holds_alternative<CollectiveOp>(op.body)) continue;
      for (int dep : op.deps) {
        const Op& d = r.ops[static_cast<size_t>(dep)];
        if (d.phase == Phase::Backward) CHECK(last_backward[d.layer] == d.id);
      }
    }
  }
}

TEST_CASE("lm_head false drops the vocabulary projection from the table and the plan") {
  const Scenario with = data_parallel({});
  const Scenario without = data_parallel({"model.transformer.lm_head=false"});
  const Layer& head = without.jobs.front().workload.layers.back();
  CHECK(head.name == "lm_head");
  CHECK(head.fwd_flops == 0);
  CHECK(head.params == 0);
  CHECK(without.jobs.front().workload.total_params() == with.jobs.front().workload.total_params());  // tied
  const Plan plan = compile_plan(without);
  for (const Op& op : plan.ranks.front().ops) {
    CHECK(op.label.find("output layer") == std::string::npos);
    CHECK(op.label.find("cross-entropy") == std::string::npos);
  }
  // The output layer was 2 d V FLOPs per token forward: 2 x 512 x 1024 x 256 tokens x 2 sequences.
  const auto fwd = [](const Plan& p) {
    double f = 0;
    for (const Op& op : p.ranks.front().ops) {
      if (op.phase == Phase::Forward) f += op_flops(op.body);
    }
    return f;
  };
  CHECK(fwd(compile_plan(with)) - fwd(plan) == Approx(2.0 * 512 * 1024 * 512 + 5.0 * 512 * 1024));
}
