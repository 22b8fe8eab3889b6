// Square-ish GEMM shapes for a FLOP count: m = n = floor(cbrt(F/2)) (rounded down to the alignment),
// k chosen so 2*m*n*k is nearest to F (in the alignment's steps); ops above max_dim^3 repeat the
// capped product and add a remainder.
#include "real/gemm.hpp"

#include <algorithm>
#include <cmath>

namespace dtsim::real {
namespace {

// One product of about `flops` with every dimension at most max_dim (flops <= 2 max_dim^3).
GemmShape one_shape(double flops, std::int64_t max_dim, GemmAlign align) {
  const double half = flops / 2.0;
  std::int64_t side = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(std::cbrt(half))), 1, max_dim);
  while (side > 1 && static_cast<double>(side) * static_cast<double>(side) > half) --side;
  const bool aligned = align.mn > 1 && side >= align.mn;
  if (aligned) side -= side % align.mn;
  const double slice = static_cast<double>(side) * static_cast<double>(side);
  std::int64_t k = std::clamp<std::int64_t>(std::llround(half / slice), 1, max_dim);
  // k in steps of align.k only where half a step is at most 1/32 of it (3 % of the FLOPs).
  if (aligned && align.k > 1 && k >= 16 * align.k) {
    k = std::clamp<std::int64_t>(std::llround(half / slice / static_cast<double>(align.k)) * align.k, align.k, max_dim);
  }
  return GemmShape{side, side, k, 1};
}

}  // namespace

std::vector<GemmShape> gemm_shapes(double flops, std::int64_t max_dim, GemmAlign align) {
  std::vector<GemmShape> out;
  if (!(flops >= 2.0) || max_dim < 1) return out;
  const double cap = 2.0 * std::pow(static_cast<double>(max_dim), 3);
  if (flops >= cap) {
    const auto full = static_cast<std::int64_t>(std::floor(flops / cap));
    out.push_back(GemmShape{max_dim, max_dim, max_dim, full});
    flops -= cap * static_cast<double>(full);
  }
  if (flops >= 2.0) out.push_back(one_shape(flops, max_dim, align));
  return out;
}

}  // namespace dtsim::real
