// Sliding-window attention (TransformerSpec::window on window_layers of the blocks) against closed forms counted
// here: a window of the whole sequence is the full causal mask exactly; a windowed block's flash FLOPs are the band
// the mask leaves, counted cell by cell; window_layers 0.5 costs the mean of a windowed and a full block, in FLOPs and
// in time; a smaller window never costs more; MFU's model FLOPs count each query's whole window; separate kernels
// keep the full scores; no context parallelism with a window.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "models/parallel/layout_space.hpp"
#include "models/parallel/model_flops.hpp"
#include "models/parallel/transformer_ops.hpp"
#include "models/zoo/attention.hpp"
#include "models/zoo/device.hpp"
#include "models/zoo/kernel.hpp"
#include "models/zoo/transformer.hpp"
#include "tests/support/kernel_totals.hpp"
#include "tests/support/llama_spec.hpp"

using namespace dtsim;

namespace {

// Llama 3 8B's block over `seq` tokens with a window of `window` on `share` of the blocks.
TransformerSpec windowed(int seq, int window, double share = 1) {
  TransformerSpec m = test::llama_block();
  m.seq_len = seq;
  m.window = window;
  m.window_layers = share;
  return m;
}

const ShardShape kShard{1, 1, 1, false, 2, 2};  // no tensor, context or expert parallelism; 2 sequences, bf16

std::vector<KernelStep> attention_kernels(const std::vector<KernelStep>& steps) {
  std::vector<KernelStep> out;
  for (const KernelStep& k : steps) {
    if (!k.collective && k.cls == KernelClass::Attention) out.push_back(k);
  }
  return out;
}

// A block's attention core forward and backward: its FLOPs, and its seconds on an H100 (its fused-attention figures
// and shape factor, models/zoo/attention.hpp).
struct Core {
  double flops = 0;
  double seconds = 0;
};
Core core_of(const TransformerSpec& m, const ShardShape& sh = kShard) {
  static const DeviceSpec h100 = load_device("h100_sxm");
  Core c;
  for (const auto& steps : {block_forward(m, sh), block_backward(m, sh)}) {
    for (const KernelStep& k : attention_kernels(steps)) {
      c.flops += k.flops;
      c.seconds += kernel_time(h100, 1, Dtype::Bf16, k.cls, k.flops, k.mem_bytes, k.gemm);
    }
  }
  return c;
}

// The attention row's forward FLOPs a sample in the layer table (make_transformer).
double attn_row(const TransformerSpec& m) { return make_transformer(m, "t").layers[1].fwd_flops; }

// The band a window of w leaves over s queries, counted cell by cell (query i, key j <= i): the cells inside whole,
// the two edge diagonals (j = i, and j = i - w just outside the window) half, as the full causal mask's s^2 / 2
// counts its diagonal (tested below: with w = s, s^2 / 2).
double band_by_cells(int s, int w) {
  double area = 0;
  for (int i = 1; i <= s; ++i) {
    for (int j = 1; j <= i; ++j) {
      const int behind = i - j;
      area += behind == 0 || behind == w ? 0.5 : behind < w ? 1.0 : 0.0;
    }
  }
  return area;
}

}  // namespace

TEST_CASE("a window of the whole sequence or more is exactly full causal attention", "[window][attention]") {
  const TransformerSpec full = windowed(1024, 0);
  for (const int w : {1024, 4096}) {
    for (const double share : {1.0, 0.5}) {
      CAPTURE(w, share);
      const TransformerSpec m = windowed(1024, w, share);
      CHECK_FALSE(has_window(m));
      for (const bool backward : {false, true}) {
        const auto a = backward ? block_backward(m, kShard) : block_forward(m, kShard);
        const auto b = backward ? block_backward(full, kShard) : block_forward(full, kShard);
        REQUIRE(a.size() == b.size());
        for (size_t i = 0; i < a.size(); ++i) {
          CHECK(a[i].name == b[i].name);
          CHECK(a[i].flops == b[i].flops);
          CHECK(a[i].mem_bytes == b[i].mem_bytes);
          CHECK(a[i].gemm.n == b[i].gemm.n);
        }
      }
      CHECK(attn_row(m) == attn_row(full));
      CHECK(model_flops_per_sample(m, 2) == model_flops_per_sample(full, 2));
      CHECK(core_of(m).seconds == core_of(full).seconds);
    }
  }
  // The closed form meets the full mask's s / 2 there, and the band counted cell by cell is the triangle's s^2 / 2.
  CHECK(causal_keys_per_query(1024, 1024) == 512);
  CHECK(band_by_cells(64, 64) == 64.0 * 64 / 2);
}

TEST_CASE("a windowed block's flash attention FLOPs are the band the mask leaves, counted query by query",
          "[window][attention][flops]") {
  const int s = 1000, w = 96;
  const double b = 2, h = 4096;  // kShard's sequences, Llama's hidden
  // Each query's keys: min(i, w), itself included; the band counts the two edge diagonals half.
  double seen = 0;
  for (int i = 1; i <= s; ++i) seen += std::min(i, w);
  const double band = band_by_cells(s, w);
  CHECK(band == seen - w / 2.0);
  CHECK(causal_keys_per_query(s, w) * s == Approx(band).epsilon(1e-12));

  const TransformerSpec m = windowed(s, w);
  const auto fwd = attention_kernels(block_forward(m, kShard));
  REQUIRE(fwd.size() == 1);
  CHECK(fwd[0].name == "window attention");
  CHECK(fwd[0].flops == Approx(4 * b * h * band).epsilon(1e-12));  // QK^T and AV, 2 FLOPs a multiply-add each
  CHECK(fwd[0].gemm.m == s);
  CHECK(fwd[0].gemm.n == w);  // the kernel's shape: s queries by the window's keys
  const auto bwd = attention_kernels(block_backward(m, kShard));
  REQUIRE(bwd.size() == 1);
  CHECK(bwd[0].flops == Approx(2.5 * fwd[0].flops).epsilon(1e-12));  // five products backward, two forward

  // The layer table counts the same band; the full table's core is 2 s^2 d.
  const TransformerSpec full = windowed(s, 0);
  CHECK(attn_row(m) - attn_row(full) == Approx(4 * h * band - 2.0 * s * s * h).epsilon(1e-12));

  // MFU's model FLOPs count each query's whole window, w keys where the full mask counts s (3 passes a block).
  CHECK(model_flops(fwd[0].cls, fwd[0].flops, fwd[0].gemm) == Approx(4 * b * h * s * w).epsilon(1e-12));
  CHECK(model_flops_per_sample(full, 2) - model_flops_per_sample(m, 2) ==
        Approx(3 * m.layers * 4 * h * s * double(s - w)).epsilon(1e-12));
}

TEST_CASE("window_layers 0.5 costs the mean of a windowed and a full block's attention", "[window][attention]") {
  const TransformerSpec full = windowed(4096, 0), local = windowed(4096, 512), half = windowed(4096, 512, 0.5);
  const auto kernels = attention_kernels(block_forward(half, kShard));
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].name == "attention");
  CHECK(kernels[1].name == "window attention");
  const Core a = core_of(full), b = core_of(local), mixed = core_of(half);
  CHECK(b.flops < a.flops);
  CHECK(mixed.flops == Approx((a.flops + b.flops) / 2).epsilon(1e-12));
  CHECK(mixed.seconds == Approx((a.seconds + b.seconds) / 2).epsilon(1e-12));
  CHECK(attn_row(half) == Approx((attn_row(full) + attn_row(local)) / 2).epsilon(1e-12));
  CHECK(model_flops_per_sample(half, 2) ==
        Approx((model_flops_per_sample(full, 2) + model_flops_per_sample(local, 2)) / 2).epsilon(1e-12));
  // Two kernels forward, two backward, each block's: the block's steps otherwise unchanged.
  CHECK(test::kernel_totals(block_backward(half, kShard)).compute_steps ==
        test::kernel_totals(block_backward(full, kShard)).compute_steps + 1);
}

TEST_CASE("a smaller window never makes attention slower", "[window][attention]") {
  const int s = 2048;
  Core before = core_of(windowed(s, 1));
  for (int w = 2; w <= s; ++w) {
    const Core now = core_of(windowed(s, w));
    CAPTURE(w);
    CHECK(now.flops >= before.flops);
    CHECK(now.seconds >= before.seconds);
    before = now;
  }
  CHECK(core_of(windowed(s, 0)).seconds == before.seconds);  // the full mask: the widest window's time
}

TEST_CASE("separate attention kernels compute the full scores and mask them, window or not", "[window][attention]") {
  TransformerSpec full = windowed(1024, 0), local = windowed(1024, 128);
  full.flash_attention = local.flash_attention = false;
  for (const bool eager : {false, true}) {
    ShardShape sh = kShard;
    sh.eager_attention = eager;
    const auto a = test::kernel_totals(block_forward(local, sh));
    const auto b = test::kernel_totals(block_forward(full, sh));
    CHECK(a.flops == b.flops);
    CHECK(a.bytes == b.bytes);
  }
  // The layer table still counts the model's windowed FLOPs (the plans' kernels show the unfused cost).
  CHECK(attn_row(local) < attn_row(full));
}

TEST_CASE("no context parallelism with a sliding window: the layout rules refuse it and tune's space skips it",
          "[window][attention][tune]") {
  LayoutLimits limits;
  limits.devices = 8;
  limits.global_batch = 8;
  limits.max_context = 4;
  bool context_full = false, context_local = false;
  for_each_layout(windowed(4096, 0), limits, [&](const HybridSpec& h) { context_full |= h.context > 1; });
  for_each_layout(windowed(4096, 1024), limits, [&](const HybridSpec& h) { context_local |= h.context > 1; });
  CHECK(context_full);
  CHECK_FALSE(context_local);
}
