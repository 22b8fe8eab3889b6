// strategy.recompute selective_op (torchtitan's per-op policy) and strategy.recompute_every against closed forms:
// the matmuls the policy runs again (k, o and w3 of q k v o w1 w3 w2; a plain MLP's w2), what it keeps in memory, and
// only every n-th block of a rank recomputing, in FLOPs and in the stored activations.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/plan/compiler.hpp"
#include "models/parallel/layout_rules.hpp"
#include "models/parallel/memory.hpp"
#include "models/parallel/recompute_ops.hpp"
#include "models/parallel/transformer_ops.hpp"
#include "tests/support/hybrid_job.hpp"
#include "tests/support/kernel_totals.hpp"
#include "tests/support/llama_spec.hpp"

using namespace dtsim;
constexpr auto totals = dtsim::test::kernel_totals;

namespace {

TransformerSpec llama(bool gated) { return dtsim::test::llama_block(8, gated); }

double gemm_flops(const std::vector<KernelStep>& steps) {
  double flops = 0;
  for (const KernelStep& k : steps) {
    if (!k.collective && k.cls == KernelClass::Gemm) flops += k.flops;
  }
  return flops;
}

double recompute_flops(const Plan& p) {
  double flops = 0;
  for (const RankProgram& r : p.ranks) {
    for (const Op& op : r.ops) {
      if (op.phase == Phase::Recompute) flops += op_flops(op.body);
    }
  }
  return flops;
}

}  // namespace

TEST_CASE("selective_op runs k, o and w3 again (a plain MLP's w2), with the memory-bound ops, not attention",
          "[recompute]") {
  for (bool gated : {true, false}) {
    for (int t : {1, 4}) {
      const TransformerSpec m = llama(gated);
      ShardShape sh{t, 1, 1, t > 1, 2, 2};
      const double T = 2 * 1024.0, h = 4096, kv = 1024, f = 14336;
      const double again = 2 * T * h * kv / t + 2 * T * h * h / t + 2 * T * h * f / t;  // k, o, and w3 or w2
      const std::vector<KernelStep> r = block_recompute(m, sh, Recompute::SelectiveOp);
      INFO("gated " << gated << " tensor " << t);
      CHECK(gemm_flops(r) == Approx(again));
      int norms = 0, gathers = 0;
      for (const KernelStep& k : r) {
        CHECK(k.name.ends_with(" recompute"));
        CHECK((k.collective || k.cls != KernelClass::Attention));
        CHECK((!k.collective || k.kind != CollectiveKind::ReduceScatter));
        if (!k.collective && k.cls == KernelClass::Norm) ++norms;
        if (k.collective && k.kind == CollectiveKind::AllGather) ++gathers;
      }
      CHECK(norms == 2);
      CHECK(gathers == (t > 1 ? 2 : 0));  // the sequence-parallel all-gathers before qkv and fc1
      // Less than the whole forward, more than Megatron's selective (nothing with flash attention).
      CHECK(gemm_flops(r) < gemm_flops(block_forward(m, sh)));
      CHECK(block_recompute(m, sh, Recompute::Selective).empty());
      CHECK(totals(block_recompute(m, sh, Recompute::Full)).flops == totals(block_forward(m, sh)).flops);
    }
  }
}

TEST_CASE("selective_op keeps the block's input, q, v, w1, w2, attention and the reduce-scatters' outputs",
          "[recompute]") {
  MemoryInputs in;
  in.model = llama(true);
  in.layout.data = 1;
  in.layout.micro_batch = 2;
  in.layout.recompute = Recompute::SelectiveOp;
  in.dropout = false;
  const double B = 2, T = 2 * 1024.0, h = 4096, kv = 1024, f = 14336, a = 32;
  CHECK(layer_activation_bytes(in) ==
        Approx(B * T * h + B * T * (h + kv) + B * T * f + B * T * h + 4 * a * T + B * T * h));
  in.layout.tensor = 4;
  in.layout.sequence_parallel = true;
  const double t = 4;
  // w2's output is the rank's whole T h partial sum; the two reduce-scatters' outputs T h / t each.
  CHECK(layer_activation_bytes(in) == Approx(B * T * h / t + B * T * (h + kv) / t + B * T * f / t + B * T * h / t +
                                             4 * a * T / t + B * T * h + 2 * B * T * h / t));
}

TEST_CASE("recompute_every n recomputes every n-th block of a rank and stores the others whole", "[recompute]") {
  const auto plan = [](const std::vector<std::string>& extra) {
    std::vector<std::string> o{"strategy.pipeline=2", "strategy.data=4", "strategy.global_batch=8",
                               "strategy.recompute=full"};
    o.insert(o.end(), extra.begin(), extra.end());
    return compile_plan(dtsim::test::hybrid_job(o));
  };
  const double all = recompute_flops(plan({}));
  CHECK(all > 0);
  CHECK(recompute_flops(plan({"strategy.recompute_every=2"})) == Approx(all / 2));  // 2 of each stage's 4 blocks
  CHECK(recompute_flops(plan({"strategy.recompute_every=4"})) == Approx(all / 4));
  CHECK(recompute_flops(plan({"strategy.recompute_every=5"})) == 0);  // no stage has a 5th block

  MemoryInputs in;
  in.model = llama(true);
  in.layout.data = 1;
  in.layout.pipeline = 1;
  const auto layer = [&](Recompute r, int every) {
    in.layout.recompute = r;
    in.layout.recompute_every = every;
    return layer_activation_bytes(in);
  };
  CHECK(layer(Recompute::Full, 2) == Approx((layer(Recompute::None, 1) + layer(Recompute::Full, 1)) / 2));
  in.model.layers = 5;  // 2 of 5 blocks recompute
  CHECK(layer(Recompute::Full, 2) == Approx(0.4 * layer(Recompute::Full, 1) + 0.6 * layer(Recompute::None, 1)));
}

TEST_CASE("recompute_every without a recompute mode, and selective_op with experts, are refused", "[recompute]") {
  TransformerSpec m = llama(true);
  HybridSpec h;
  h.data = 8;
  h.recompute_every = 2;
  const auto problem = layout_problem(m, h, 8);
  REQUIRE(problem);
  CHECK(problem->key == "strategy.recompute_every");
  h.recompute = Recompute::Full;
  CHECK_FALSE(layout_problem(m, h, 8));
  h.recompute = Recompute::SelectiveOp;
  h.recompute_every = 1;
  CHECK_FALSE(layout_problem(m, h, 8));
  m.experts = 8;
  m.top_k = 2;
  const auto moe = layout_problem(m, h, 8);
  REQUIRE(moe);
  CHECK(moe->key == "strategy.recompute");
}
