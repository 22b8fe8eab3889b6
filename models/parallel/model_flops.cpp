#include "models/parallel/model_flops.hpp"

#include <vector>

namespace dtsim {

double model_flops(KernelClass cls, double flops, const GemmShape& gemm) {
  if (cls == KernelClass::Attention && gemm.causal && gemm.n < gemm.m) {
    return flops * gemm.n / causal_keys_per_query(gemm.m, gemm.n);  // a window of n keys over m queries
  }
  if (cls == KernelClass::Attention) return gemm.causal ? 2 * flops : flops;
  return cls == KernelClass::Gemm ? flops : 0;
}

double model_flops_per_sample(const TransformerSpec& m, double dtype_bytes) {
  ShardShape one;
  one.dtype_bytes = dtype_bytes;
  const auto flops = [](const std::vector<KernelStep>& steps) {
    double f = 0;
    for (const KernelStep& k : steps) f += k.collective ? 0 : model_flops(k.cls, k.flops, k.gemm);
    return f;
  };
  return 3 * (m.layers * flops(block_forward(m, one)) + flops(embedding_forward(m, one)) + flops(head_forward(m, one)));
}

}  // namespace dtsim
