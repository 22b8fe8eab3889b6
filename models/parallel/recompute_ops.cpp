// What a block runs again before its backward under each strategy.recompute mode (transformer_ops.hpp, Recompute).
#include <string>

#include "models/parallel/recompute_ops.hpp"

namespace dtsim {
namespace {

// The share of forward step `k` that torchtitan's per-op policy runs again. Its matmuls run q k v o w1 w3 w2 (without
// the gate: q k v o w1 w2) and the even-numbered ones run again: of dtsim's qkv the k columns (kv_dim of its
// h + 2 kv_dim outputs), proj (o), of a gated fc1 the up half (w3), a plain fc2 (w2).
double op_policy_share(const TransformerSpec& m, const KernelStep& k) {
  if (k.collective) return k.kind == CollectiveKind::ReduceScatter ? 0 : 1;
  if (k.cls == KernelClass::Attention) return 0;                // scaled_dot_product_attention's output is kept
  const std::string gemm = k.name.substr(0, k.name.find(' '));  // a linear layer's name, or its cast's first word
  if (gemm == "qkv") {
    const double kv_dim = static_cast<double>(m.kv_heads > 0 ? m.kv_heads : m.heads) * m.hidden / m.heads;
    return kv_dim / (m.hidden + 2 * kv_dim);
  }
  if (gemm == "fc1") return m.gated_mlp ? 0.5 : 0;
  if (gemm == "fc2") return m.gated_mlp ? 0 : 1;
  return 1;  // proj, the unfused attention core's batched products, the memory-bound ops
}

}  // namespace

std::vector<KernelStep> block_recompute(const TransformerSpec& m, const ShardShape& sh, Recompute mode) {
  switch (mode) {
    case Recompute::None: return {};
    case Recompute::Selective: return attention_core_recompute(m, sh);
    case Recompute::Full: return block_forward(m, sh);
    case Recompute::SelectiveOp: break;
  }
  std::vector<KernelStep> out;
  for (KernelStep k : block_forward(m, sh)) {
    const double share = op_policy_share(m, k);
    if (share <= 0) continue;
    if (!k.collective && k.cls == KernelClass::Gemm && share < 1) {  // the recomputed columns of a fused GEMM
      k.flops *= share;
      k.mem_bytes *= share;
      k.gemm.n *= share;
    }
    k.name += " recompute";
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace dtsim
