// framework.fp8_param_gather against its closed form: with model.fp8, ZeRO's parameter all-gathers carry the linear
// layers' weights (qkv h x 3h, proj h x h, fc1 h x 4h, fc2 4h x h: 12 h^2 a GPT block, over t) in one byte and every
// other parameter (embedding, norms, biases) in model.dtype; without model.fp8, or with the key off, nothing changes.
// tune's layout cost prices the gathers with the same rule (param_gather_bytes).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/plan/compiler.hpp"
#include "core/plan/hybrid/compile.hpp"
#include "models/parallel/transformer_ops.hpp"
#include "tests/support/hybrid_job.hpp"

using namespace dtsim;
using dtsim::test::hybrid_job;

namespace {

// The bytes rank `rank`'s all-gathers of parameters carry (ZeRO 1 and 2 after the step, or ZeRO-3's per block).
double gathered_bytes(const Plan& plan, int rank) {
  double bytes = 0;
  for (const Op& op : plan.ranks[rank].ops) {
    const auto* c = std::get_if<CollectiveOp>(&op.body);
    const bool gather =
        op.label.find("params all-gather") != std::string::npos || op.label.rfind("zero3 gather", 0) == 0;
    if (c && gather) bytes += c->bytes;
  }
  return bytes;
}

Plan compile(std::vector<std::string> overrides) {
  overrides.push_back("cluster.device=h100_sxm");
  return compile_plan(hybrid_job(overrides));
}

}  // namespace

TEST_CASE("fp8 parameters: ZeRO-1 gathers the linear layers' weights in one byte, the rest in bf16", "[fp8]") {
  // The test job: 8 blocks of hidden 512 and vocabulary 1024 (bias, LayerNorm), tied embeddings (one stage: the
  // output layer is the embedding, counted once), on 8 ranks: t 2, d 4.
  const std::vector<std::string> layout{"strategy.tensor=2", "strategy.data=4", "strategy.zero=1", "model.fp8=delayed"};
  const double h = 512, t = 2, blocks = 8;
  const double linear = blocks * 12 * h * h / t;  // the rank's qkv, proj, fc1 and fc2 weights
  auto on = layout, off = layout;
  on.push_back("framework.fp8_param_gather=true");
  off.push_back("framework.fp8_param_gather=false");
  const double with = gathered_bytes(compile(on), 0), without = gathered_bytes(compile(off), 0);
  REQUIRE(without > 0);
  // Without the key every parameter is gathered in bf16: the rank's parameters x 2 bytes.
  auto on_h100 = off;
  on_h100.push_back("cluster.device=h100_sxm");
  const Scenario s = hybrid_job(on_h100);
  const ShardShape sh = job_shard_shape(s.job(), job_layout(s, s.job()));
  const TransformerSpec& m = s.job().model.transformer;
  const double params = blocks * block_params(m, sh).dense + embedding_params(m, sh) + output_params(m, sh, 1);
  CHECK(without == Approx(2 * params));
  CHECK(block_linear_weights(m, sh).dense == Approx(12 * h * h / t));
  // With it, the linear weights go at 1 byte instead of 2: one byte a weight less.
  CHECK(with == Approx(without - linear));
}

TEST_CASE("fp8 parameters: ZeRO-3 gathers each block's linear weights in one byte", "[fp8]") {
  const std::vector<std::string> layout{"strategy.data=8", "strategy.zero=3", "model.fp8=delayed"};
  const double h = 512;
  auto on = layout, off = layout;
  on.push_back("framework.fp8_param_gather=true");
  off.push_back("framework.fp8_param_gather=false");
  const Plan with = compile(on), without = compile(off);
  // Every block is gathered before its forward and its backward, each time 12 h^2 bytes fewer; the embedding's
  // gather after the step (ZeRO-3 keeps it whole through the passes) has no linear weights and is unchanged.
  int gathers = 0;
  for (const Op& op : with.ranks[0].ops) {
    gathers += op.label.rfind("zero3 gather", 0) == 0;
  }
  REQUIRE(gathers > 0);
  CHECK(gathered_bytes(with, 0) == Approx(gathered_bytes(without, 0) - gathers * 12 * h * h));
}

TEST_CASE("fp8 parameters change nothing without model.fp8, and nothing but the gathers with it", "[fp8]") {
  const std::vector<std::string> bf16{"strategy.data=8", "strategy.zero=1"};
  auto on = bf16;
  on.push_back("framework.fp8_param_gather=true");
  CHECK(gathered_bytes(compile(on), 0) == Approx(gathered_bytes(compile(bf16), 0)));
  // With fp8, the reduce-scatters of the gradients keep model.grad_dtype.
  const auto reduced = [](const Plan& p) {
    double bytes = 0;
    for (const Op& op : p.ranks[0].ops) {
      const auto* c = std::get_if<CollectiveOp>(&op.body);
      if (c && c->kind == CollectiveKind::ReduceScatter) bytes += c->bytes;
    }
    return bytes;
  };
  auto fp8 = bf16, fp8_on = bf16;
  fp8.push_back("model.fp8=delayed");
  fp8_on.push_back("model.fp8=delayed");
  fp8_on.push_back("framework.fp8_param_gather=true");
  CHECK(reduced(compile(fp8_on)) == Approx(reduced(compile(fp8))));
  CHECK(gathered_bytes(compile(fp8_on), 0) < gathered_bytes(compile(fp8), 0));
}
