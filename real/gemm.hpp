// How a compute op of F FLOPs becomes real matrix products: square-ish GEMMs with
// 2*m*n*k = F (within one k-slice), huge ops cut into repeated products of a capped size so the
// matrices stay small. Shared by the CPU (Eigen) and CUDA (cuBLAS) backends.
#pragma once

#include <cstdint>
#include <vector>

namespace dtsim::real {

// The largest matrix side the cpu backend multiplies (RealOptions::max_gemm_dim's default there).
inline constexpr std::int64_t kMaxGemmDim = 512;
// The cuda backend's: a product of 512^3 (268 MFLOP) runs in about 7 us on an H200, as long as
// cuBLAS takes to launch it, so bigger ops cut at 512 ran at 37 TFLOP/s in fp16 (H200,
// 2026-11-26); an 8192^3 product (1.1 TFLOP) is well past launch cost at any GPU's rate, and its
// three matrices take 805 MB of fp32.
inline constexpr std::int64_t kMaxGemmDimCuda = 8192;

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t repeat = 1;  // run this product this many times

  double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(repeat);
  }
};

// Dimensions a backend's products keep to where the op is big enough: m and n multiples of `mn`, k
// of `k` (1: any). Tensor-core GEMMs want them: on an H200, fp16 products of odd sides (806^3,
// 3222^3) ran 2 to 7 times slower than smaller ones of round sides (2026-11-26).
struct GemmAlign {
  std::int64_t mn = 1;
  std::int64_t k = 1;
};
// The cuda backend's: whole 64-wide tiles in m and n, k in steps of 8 (16 bytes of fp16).
inline constexpr GemmAlign kGemmAlignCuda{64, 8};

// Products whose FLOPs add up to `flops` (to within one m*n*2 slice, or 3 % where k is aligned; none
// for flops < 2).
// No dimension exceeds max_dim: bigger ops repeat a max_dim^3 product, then add a remainder.
std::vector<GemmShape> gemm_shapes(double flops, std::int64_t max_dim, GemmAlign align = {});

// FLOPs the shapes execute.
inline double gemm_flops(const std::vector<GemmShape>& shapes) {
  double f = 0;
  for (const auto& s : shapes) f += s.flops();
  return f;
}

}  // namespace dtsim::real
