// Fused attention kernels by library, in one table (attention.cpp): how the fraction of peak a kernel reaches moves
// with its pass, head dimension, sequence length and causal mask. A device's figure for a backend and pass
// (devices.yaml kernels.attention) is the fraction at head dimension 128 without a mask on long sequences; a kernel
// reaches
//   figure(pass) x head(d) x sequence(n, mask)
//   head(d)     = [d' / (d' + d0)] / [128 / (128 + d0)],  d' = min(d, 128): the tile's softmax work, which does not
//                 grow with d, beside its two products, which do (head dimensions above 128 keep 128's figure)
//   sequence    = n / (n + c) without a mask: each query tile's fixed work (loading it, writing its output) over its
//                 n key tiles of 128;  causal x n / (n + k) with the causal mask: the diagonal tiles computed whole
//                 and masked, and the query tiles' unequal lengths
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

// head(d) x sequence(n, mask) for one pass of a kernel over `keys` keys with head dimension `head_dim`.
double attention_shape_factor(AttentionBackend b, bool backward, double head_dim, double keys, bool causal);

}  // namespace dtsim
