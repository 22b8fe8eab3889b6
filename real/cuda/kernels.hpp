// Small CUDA kernels of the cuda backend: the integer-valued gradients of real/values.hpp, their
// exact sums checked on the device, a server's aggregation and the SGD step.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace dtsim::real::cuda {

// Device-side results of a check, accumulated over iterations.
struct DeviceCheck {
  unsigned long long checked;
  unsigned long long mismatched;
  double checksum;
  double expected;
};

// buf[e] = contribution(offset + e, rank, salt)
void fill_contribution(float* buf, std::int64_t n, std::int64_t offset, int rank, int salt, cudaStream_t s);
// Compares buf[e] with the sum over `ranks` of contribution(offset + e, r, salt). The checksums
// are reset before each check (they describe the last iteration).
void check_sum(const float* buf, std::int64_t n, std::int64_t offset, int ranks, int salt, DeviceCheck* out,
               cudaStream_t s);
// out[e] += in[e]
void add_into(float* out, const float* in, std::int64_t n, cudaStream_t s);
// p[e] -= lr * g[e]
void sgd_step(float* p, const float* g, std::int64_t n, float lr, cudaStream_t s);
// p[e] = (offset + e) % 1024
void init_params(float* p, std::int64_t n, std::int64_t offset, cudaStream_t s);

}  // namespace dtsim::real::cuda
