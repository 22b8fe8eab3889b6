// The grid of the cuda backend's element-wise kernels: kThreads per block, grid-stride loops over
// at most 65535 blocks.
#pragma once

#include <cstdint>

namespace dtsim::real::cuda {

constexpr int kThreads = 256;

inline int blocks(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65535 ? (b < 1 ? 1 : b) : 65535);
}

}  // namespace dtsim::real::cuda
