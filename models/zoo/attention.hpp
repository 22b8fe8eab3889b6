// Fused attention kernels by library, in one table (attention.cpp): how the fraction of peak a kernel reaches moves
// with its pass, head dimension, sequence length and causal mask. A device's figure for a backend and pass
// (devices.yaml kernels.attention) is the fraction at head dimension 128 without a mask on long sequences; a kernel
// reaches
//   figure(pass) x head(d) x sequence(n, mask)
//   head(d)     = [d' / (d' + d0)] / [128 / (128 + d0)],  d' = min(d, 128): the tile's softmax work, which does not
//                 grow with d, beside its two products, which do (head dimensions above 128 keep 128's figure)
//   sequence    = n / (n + c) without a mask: each query tile's fixed work (loading it, writing its output) over its
//                 n key tiles of 128;  causal x n / (n + k) with the causal mask: the diagonal tiles computed whole
//                 and masked, and the query tiles' unequal lengths (a sliding window: n from the keys its queries
//                 see, attention_shape_factor below)
// with d0, c, causal and k per backend and pass, fitted on published H100 measurements by
// bench/kernels/attention_fit.py and shown there on A100 and H200 (bench/kernels/attention.md); FlashAttention in
// Triton's on the A100 figure its only published measurement gives.
// To add a backend: its enum value, its row in kBackends (attention.cpp) with its constants and sources, its
// figures in devices.yaml, and its fit in bench/kernels/attention_fit.py; tests/models/zoo/attention_test.cpp holds
// the table to attention.md.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace dtsim {

// Which library's fused attention kernel a job runs (framework.attention_backend). Flash2: FlashAttention-2
// (Dao-AILab/flash-attention 2.x, and PyTorch's scaled_dot_product_attention's flash backend). Cudnn: cuDNN's
// fused flash attention (Transformer Engine's FusedAttention, PyTorch's cuDNN backend). FlashTriton: FlashAttention
// written in Triton (Dao's flash_attn_triton.py, which llm-foundry ran as attn_impl: triton until 2024).
enum class AttentionBackend { Flash2, Cudnn, FlashTriton };
inline constexpr int kAttentionBackendCount = 3;

// One pass's shape constants (the header's formula).
struct AttentionShape {
  double d0 = 0;      // head-dimension constant
  double c = 0;       // a query tile's fixed work, in key tiles
  double causal = 1;  // the causal mask's factor on long sequences
  double k = 0;       // its fixed work, in key tiles
};

struct AttentionBackendTraits {
  AttentionBackend backend = AttentionBackend::Flash2;
  std::string_view name;  // as framework.attention_backend spells it and devices.yaml keys its figures
  std::string_view description;
  AttentionShape forward;
  AttentionShape backward;
  std::string_view source;
};

// Every backend, in the enum's order.
std::span<const AttentionBackendTraits> attention_backends();
const AttentionBackendTraits& attention_backend(AttentionBackend b);
std::optional<AttentionBackend> parse_attention_backend(std::string_view name);

// head(d) x sequence(n, mask) for one pass of a kernel over `keys` keys with head dimension `head_dim`. A causal kernel
// with fewer keys than its `queries` (0: as many) is a sliding window of w = keys over a sequence of s = queries
// (TransformerSpec::window; models/parallel/transformer_ops.hpp). The causal factor reads a kernel by twice the mean
// keys its queries see (the full mask: n over s keys, s / 2 a query), each query tile's fixed work and diagonal
// against the key tiles it works through; a window's query tiles each work through about w / 128 of them, so its n is
// 2 causal_keys_per_query(s, w) / 128 = w (2 - w / s) / 128: about twice the window for w << s, and the full mask's s
// at w = s. The kernel's time, FLOPs / factor, then meets the full mask's at w = s and grows with w (it goes as
// keys(s, w) + 64 k).
double attention_shape_factor(AttentionBackend b, bool backward, double head_dim, double keys, bool causal,
                              double queries = 0);

// The mean number of keys a query of a causal sequence of `seq` tokens attends to through a window of `window` keys,
// as dtsim counts the causal mask's work:
//   keys(s, w) = w - w^2 / (2 s)   for 0 < w < s;    s / 2 for w = 0 (no window) or w >= s.
// Derivation: query i of 1..s sees keys max(1, i - w + 1)..i, min(i, w) of them, and
//   sum_{i=1..s} min(i, w) = sum_{i=1..w} i + (s - w) w = s w - w (w - 1) / 2.
// dtsim counts the full causal mask as s / 2 keys a query (the triangle's area s^2 / 2: Kaplan et al.'s 2*s*d a token,
// "half of 4 T s h" in transformer_ops.hpp), which is the exact s (s + 1) / 2 less half its diagonal. Counted the same
// way, by area, the band {0 <= i - j <= w} the window leaves is s w - w^2 / 2 = the exact count less w / 2 (its two
// edge diagonals counted half: -s/2 + (s - w)/2), so the mean is w - w^2 / (2 s), w / (2 s) under the exact
// count's mean (less than half a key). It meets the full mask's s / 2 at w = s and grows with w (d/dw = 1 - w/s >= 0):
// a smaller window never costs more. (The exact mean w - w (w - 1) / (2 s) beside the full mask's s / 2 would cost a
// window of s - 1 keys (s + 1) / 2 - 1 / s a query, more than no window at all.)
double causal_keys_per_query(double seq, double window);

}  // namespace dtsim
