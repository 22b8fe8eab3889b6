// The fused attention backends (the rules are in attention.hpp).
#include "models/zoo/attention.hpp"

#include <algorithm>
#include <array>

namespace dtsim {
namespace {

// Fitted by bench/kernels/attention_fit.py (bench/kernels/attention.md): forward on the FlashAttention-3 paper's
// Figure 5, backward on its Figure 6 (J. Shah et al., arXiv 2407.08608v2: H100 SXM5, FlashAttention 2.5.8 and cuDNN
// 9.1.1, head dimensions 64 and 128; bench/llm/sources/flash_attention.md sections 4 and 5), the causal backward on
// FlashAttention-2's own H100 forward + backward figure (Dao-AILab/flash-attention @ 0251105,
// assets/flash2_h100_fwd_bwd_benchmark.png; section 3); FlashAttention in Triton on A100 (below).
constexpr std::array<AttentionBackendTraits, kAttentionBackendCount> kBackends{{
    {AttentionBackend::Flash2,
     "flash2",
     "FlashAttention-2",
     {18, 0.7, 0.937, 3.0},
     {14, 2.1, 0.970, 4.6},
     "Dao-AILab/flash-attention 2.x; PyTorch's scaled_dot_product_attention (flash backend)"},
    {AttentionBackend::Cudnn,
     "cudnn",
     "cuDNN fused flash attention",
     {106, 0.9, 0.926, 3.0},
     {28, 2.8, 0.970, 4.6},
     "cuDNN's fused attention (Transformer Engine's FusedAttention, which it prefers on Hopper: "
     "NVIDIA/TransformerEngine @ a0b36d0, transformer_engine/pytorch/attention/dot_product_attention/utils.py, "
     "get_attention_backend); its causal backward takes FlashAttention-2's constants (no published figure gives it)"},
    // The FA2 paper (T. Dao, arXiv 2307.08691) gives this kernel forward and backward together only (Figure 4: A100
    // 80GB SXM4, 24 cells; bench/llm/sources/flash_attention.md section 2) and says FlashAttention-2 is "around
    // 1.3-1.5x faster than FlashAttention in Triton in the forward pass" (section 4.1): its forward is
    // FlashAttention-2's at 1 / 1.4 of the speed, its backward fitted on those cells (5.8 % mean error).
    {AttentionBackend::FlashTriton,
     "flash_triton",
     "FlashAttention in Triton",
     {18, 0.7, 0.937, 3.0},
     {0, 0.6, 0.803, 1.6},
     "Dao-AILab/flash-attention's flash_attn/flash_attn_triton.py (Triton 2.0), which mosaicml/llm-foundry copied as "
     "llmfoundry/models/layers/flash_attn_triton.py and ran as attn_impl: triton (submit_benchmarks.py's default "
     "until 7f0fdae66, 2024-03-26)"},
}};

constexpr bool in_enum_order() {
  for (size_t i = 0; i < kBackends.size(); ++i) {
    if (static_cast<size_t>(kBackends[i].backend) != i) return false;
  }
  return true;
}
static_assert(in_enum_order(), "kBackends lists every backend in the enum's order");

}  // namespace

std::span<const AttentionBackendTraits> attention_backends() { return kBackends; }

const AttentionBackendTraits& attention_backend(AttentionBackend b) { return kBackends[static_cast<size_t>(b)]; }

std::optional<AttentionBackend> parse_attention_backend(std::string_view name) {
  for (const AttentionBackendTraits& t : kBackends) {
    if (t.name == name) return t.backend;
  }
  return std::nullopt;
}

double attention_shape_factor(AttentionBackend b, bool backward, double head_dim, double keys, bool causal,
                              double queries) {
  const AttentionBackendTraits& t = attention_backend(b);
  const AttentionShape& s = backward ? t.backward : t.forward;
  const double d = std::min(head_dim, 128.0);
  const double head = (d / (d + s.d0)) / (128.0 / (128.0 + s.d0));
  const bool window = causal && keys < queries;  // a sliding window of `keys` over `queries` (attention.hpp)
  const double n = (window ? 2 * causal_keys_per_query(queries, keys) : keys) / 128.0;
  const double sequence = causal ? s.causal * n / (n + s.k) : n / (n + s.c);
  return head * sequence;
}

double causal_keys_per_query(double seq, double window) {
  if (window <= 0 || window >= seq) return seq / 2;
  return window - window * window / (2 * seq);
}

}  // namespace dtsim
