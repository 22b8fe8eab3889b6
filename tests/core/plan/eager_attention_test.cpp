// framework.attention_kernels eager against the traffic it adds, counted by hand (transformer_ops.hpp, Eager
// attention): forward, Q, K and V copied to the heads' layout and the context back (4 T h elements, each read and
// written: 8 T h B bytes), the scale and the mask add over the n = T s a scores (2 n B each; under autocast the mask
// writes fp32, which replaces the scores' cast, n (B + 4)); backward, the copies again (the same traffic), the
// scale's gradient (2 n B) and no kernel for the mask add (autocast: the gradient's cast back, n (4 + B)). FLOPs
// move only by the scale and mask's n each; flash attention and the fused default are unchanged.
#include <catch2/catch.hpp>

#include <string>

#include "models/parallel/transformer_ops.hpp"
#include "tests/support/kernel_totals.hpp"

using namespace dtsim;
using Totals = dtsim::test::KernelTotals;
constexpr auto totals = dtsim::test::kernel_totals;

namespace {

TransformerSpec bert_block(bool flash) {
  TransformerSpec m;
  m.layers = 2;
  m.hidden = 1024;
  m.heads = 16;
  m.seq_len = 384;
  m.vocab = 30522;
  m.encoder = true;
  m.flash_attention = flash;
  return m;
}

ShardShape shape(bool eager, bool autocast) {
  ShardShape sh{1, 1, 1, false, 32, 2};
  sh.eager_attention = eager;
  sh.autocast = autocast;
  return sh;
}

}  // namespace

TEST_CASE("eager attention adds its layout copies, scale and mask add to a block, forward and backward",
          "[eager_attention]") {
  const double B = 2, h = 1024, T = 32.0 * 384, n = T * 384 * 16;
  for (const bool autocast : {false, true}) {
    CAPTURE(autocast);
    const TransformerSpec m = bert_block(false);
    const Totals fused_fwd = totals(block_forward(m, shape(false, autocast)));
    const Totals eager_fwd = totals(block_forward(m, shape(true, autocast)));
    const Totals fused_bwd = totals(block_backward(m, shape(false, autocast)));
    const Totals eager_bwd = totals(block_backward(m, shape(true, autocast)));
    const double copies = 8 * T * h * B;
    // Autocast's scores cast (n (4 + B) forward, the same backward) becomes the mask add's fp32 write.
    const double fwd_scores = autocast ? 2 * n * B + n * (B + 4) - n * (4 + B) : 4 * n * B;
    const double bwd_scores = 2 * n * B;  // the scale's gradient; autocast's cast back was there already
    CHECK(eager_fwd.copy_bytes == Approx(copies));
    CHECK(eager_bwd.copy_bytes == Approx(copies));
    CHECK(fused_fwd.copy_bytes == 0);
    CHECK(eager_fwd.bytes - fused_fwd.bytes == Approx(copies + fwd_scores));
    CHECK(eager_bwd.bytes - fused_bwd.bytes == Approx(copies + bwd_scores));
    CHECK(eager_fwd.flops - fused_fwd.flops == Approx(2 * n));  // the scale and the mask add, n each
    // Forward: 4 copies, the scale and the mask (autocast: in place of the scores cast).
    CHECK(eager_fwd.compute_steps - fused_fwd.compute_steps == (autocast ? 5 : 6));
    // Backward: 4 copies and the scale's gradient; the mask add has none (autocast: its cast back, as before).
    CHECK(eager_bwd.compute_steps - fused_bwd.compute_steps == 5);
  }
}

TEST_CASE("eager attention changes nothing with flash attention") {
  const TransformerSpec m = bert_block(true);
  const Totals fused = totals(block_forward(m, shape(false, false)));
  const Totals eager = totals(block_forward(m, shape(true, false)));
  CHECK(eager.bytes == fused.bytes);
  CHECK(eager.flops == fused.flops);
  CHECK(eager.compute_steps == fused.compute_steps);
  CHECK(totals(block_backward(m, shape(true, true))).bytes == totals(block_backward(m, shape(false, true))).bytes);
}
