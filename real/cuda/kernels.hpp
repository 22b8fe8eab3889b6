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
// The optimizer state's traffic that the SGD step does not make (momentum, Adam's moments, fp32 master
// weights): reads and writes `bytes` in all (4 each way per element), in passes over `state` (n floats),
// each element updated `fmas` times in registers (the step's arithmetic, hidden under its memory traffic as
// in a fused optimizer kernel). Returns the FLOPs done.
double stream_state(float* state, std::int64_t n, double bytes, int fmas, cudaStream_t s);
// A GEMM operand's bytes as fp16 values in [-1, 1), pseudo-random: read as fp16, bf16 or fp32 (two
// halves make a float of magnitude below 2; no NaN or infinity either way) they are ordinary
// numbers. Zeroed operands ran 13 % faster than random ones on an H200 (bf16 8192^3: 894 against
// 788 TFLOP/s, device/KINDS.md), faster than any training run's GEMMs.
void fill_operand(void* p, std::int64_t bytes, cudaStream_t s);
// p[e] = (offset + e) % 1024
void init_params(float* p, std::int64_t n, std::int64_t offset, cudaStream_t s);

}  // namespace dtsim::real::cuda
