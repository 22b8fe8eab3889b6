// The grid of the cuda backend's element-wise kernels: kThreads per block, grid-stride loops over
// at most 65535 blocks (reductions: 1024).
#pragma once

#include <cstdint>

namespace dtsim::real::cuda {

constexpr int kThreads = 256;

inline int blocks(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65535 ? (b < 1 ? 1 : b) : 65535);
}

// Kernels that end in one atomic per block: enough blocks to fill a large GPU (132 SMs of 2,048
// threads on an H100 or H200 hold 1,056 blocks of 256), not one per 256 elements.
inline int reduce_blocks(std::int64_t n) {
  const int b = blocks(n);
  return b < 1024 ? b : 1024;
}

}  // namespace dtsim::real::cuda
