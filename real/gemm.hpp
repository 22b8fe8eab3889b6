// How a compute op of F FLOPs becomes real matrix products: square-ish GEMMs with
// 2*m*n*k = F (within one k-slice), huge ops cut into repeated products of a capped size so the
// matrices stay small. Shared by the CPU (Eigen) and CUDA (cuBLAS) backends.
#pragma once

#include <cstdint>
#include <vector>

namespace dtsim::real {

// The largest matrix side the backends multiply (RealOptions::max_gemm_dim's default).
inline constexpr std::int64_t kMaxGemmDim = 512;

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t repeat = 1;  // run this product this many times

  double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(repeat);
  }
};

// Products whose FLOPs add up to `flops` (to within one m*n*2 slice; none for flops < 2).
// No dimension exceeds max_dim: bigger ops repeat a max_dim^3 product, then add a remainder.
std::vector<GemmShape> gemm_shapes(double flops, std::int64_t max_dim);

// FLOPs the shapes execute.
inline double gemm_flops(const std::vector<GemmShape>& shapes) {
  double f = 0;
  for (const auto& s : shapes) f += s.flops();
  return f;
}

}  // namespace dtsim::real
