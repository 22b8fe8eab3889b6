// framework.pointwise_kernels against the ops counted by hand (models/parallel/pointwise.hpp): each eager composite's
// traffic per element, a Llama block's traffic eager less fused as the sum of its composites', torch.compile on the
// blocks leaving the head eager, and nothing changing for a model with none of the composites (LayerNorm, GELU).
#include <catch2/catch.hpp>

#include "models/parallel/pointwise.hpp"
#include "models/parallel/transformer_ops.hpp"
#include "tests/support/kernel_totals.hpp"
#include "tests/support/llama_spec.hpp"

using namespace dtsim;
constexpr auto totals = dtsim::test::kernel_totals;

namespace {

TransformerSpec llama() { return dtsim::test::llama_block(); }

ShardShape shape(PointwiseKernels k, int tensor = 1) {
  ShardShape sh{tensor, 1, 1, false, 2, 2};
  sh.pointwise = k;
  return sh;
}

}  // namespace

TEST_CASE("each eager composite moves the bytes its PyTorch ops read and write, a fused kernel fewer", "[pointwise]") {
  // bf16: an RMSNorm forward casts up (6), squares (8), takes the mean (4), scales (8), casts down (6), weights (4).
  CHECK(norm_traffic(true, 2).forward == 36);
  CHECK(norm_traffic(true, 2).backward == 92);
  CHECK(norm_traffic(false, 2).forward == 4);
  CHECK(norm_traffic(false, 2).backward == 10);
  // In fp32 there is nothing to cast: 12 bytes fewer each way.
  CHECK(norm_traffic(true, 4).forward == 8 + 4 + 8 + 8);
  CHECK(norm_traffic(true, 4).backward == 24 + 8 + 16 + 4 + 28 + 12);
  CHECK(rotary_traffic(true, 2).forward == 6 + 8 + 6);
  CHECK(rotary_traffic(true, 2).backward == 20);
  CHECK(rotary_traffic(false, 2).forward == 4);
  CHECK(swiglu_traffic(true, 2).forward == 10);
  CHECK(swiglu_traffic(true, 2).backward == 18);
  CHECK(swiglu_traffic(false, 2).forward == 6);
  CHECK(swiglu_traffic(false, 2).backward == 12);
  // PyTorch's log_softmax over a vocabulary's row: read three times, written once; backward the zero-filled
  // gradient, the sum's read, then the gradient and output read and the input's gradient written.
  CHECK(cross_entropy_traffic(true, 2).forward == 16);
  CHECK(cross_entropy_traffic(true, 2).backward == 20);
  CHECK(cross_entropy_traffic(false, 2).forward == 6);
  for (double b : {2.0, 4.0}) {  // eager never moves less than fused
    CHECK(norm_traffic(true, b).forward >= norm_traffic(false, b).forward);
    CHECK(norm_traffic(true, b).backward >= norm_traffic(false, b).backward);
    CHECK(rotary_traffic(true, b).forward >= rotary_traffic(false, b).forward);
    CHECK(swiglu_traffic(true, b).backward >= swiglu_traffic(false, b).backward);
  }
}

TEST_CASE("an eager Llama block moves its composites' extra bytes and no more, the FLOPs do not change",
          "[pointwise]") {
  const TransformerSpec m = llama();
  for (int t : {1, 4}) {
    const double T = 2 * 1024.0, h = 4096, kv = 1024, f = 14336;
    const double norms = 2 * T * h;        // two RMSNorms over the rank's tokens (no sequence parallelism)
    const double rope = T * (h + kv) / t;  // the rank's queries and keys
    const double gate = T * f / t;         // SwiGLU's outputs
    const double forward = norms * (36 - 4) + rope * (20 - 4) + gate * (10 - 6);
    const double backward = norms * (92 - 10) + rope * (20 - 4) + gate * (18 - 12);
    INFO("tensor " << t);
    const auto fused = totals(block_forward(m, shape(PointwiseKernels::Fused, t)));
    const auto eager = totals(block_forward(m, shape(PointwiseKernels::Eager, t)));
    CHECK(eager.bytes - fused.bytes == Approx(forward));
    CHECK(eager.flops == Approx(fused.flops));
    CHECK(eager.collective_bytes == fused.collective_bytes);
    CHECK(totals(block_backward(m, shape(PointwiseKernels::Eager, t))).bytes -
              totals(block_backward(m, shape(PointwiseKernels::Fused, t))).bytes ==
          Approx(backward));
  }
}

TEST_CASE("torch.compile on the blocks fuses them and leaves the final norm and the fp32 loss eager", "[pointwise]") {
  const TransformerSpec m = llama();
  const ShardShape fused = shape(PointwiseKernels::Fused), compiled = shape(PointwiseKernels::CompiledBlocks);
  CHECK(totals(block_forward(m, compiled)).bytes == totals(block_forward(m, fused)).bytes);
  CHECK(totals(block_backward(m, compiled)).bytes == totals(block_backward(m, fused)).bytes);
  const double T = 2 * 1024.0, h = 4096, V = 128256;
  // Forward: the final RMSNorm eager, the logits cast to fp32 (6 a logit), log_softmax on them (16 against 6).
  CHECK(totals(head_forward(m, compiled)).bytes - totals(head_forward(m, fused)).bytes ==
        Approx(T * h * (36 - 4) + T * V * 6 + T * V * (16 - 6)));
  // Backward: the norm, the gradient's cast back (6) and PyTorch's loss gradient (20 against 6).
  CHECK(totals(head_backward(m, compiled)).bytes - totals(head_backward(m, fused)).bytes ==
        Approx(T * h * (92 - 10) + T * V * 6 + T * V * (20 - 6)));
  // Eager heads are compiled blocks' heads.
  CHECK(totals(head_forward(m, shape(PointwiseKernels::Eager))).bytes == totals(head_forward(m, compiled)).bytes);
}

TEST_CASE("a LayerNorm and GELU model without rotary has only the loss to run eager", "[pointwise]") {
  TransformerSpec m = llama();
  m.rms_norm = false;
  m.gated_mlp = false;
  m.rotary = false;
  m.kv_heads = 0;
  m.ffn = 0;
  const ShardShape fused = shape(PointwiseKernels::Fused), eager = shape(PointwiseKernels::Eager);
  CHECK(totals(block_forward(m, eager)).bytes == totals(block_forward(m, fused)).bytes);
  CHECK(totals(block_backward(m, eager)).bytes == totals(block_backward(m, fused)).bytes);
  const double T = 2 * 1024.0, V = 128256;
  CHECK(totals(head_forward(m, eager)).bytes - totals(head_forward(m, fused)).bytes == Approx(T * V * (6 + 10)));
}
