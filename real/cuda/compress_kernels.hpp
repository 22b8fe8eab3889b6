// Gradient-compression kernels of the cuda backend, in the wire formats of the cpu backend's
// codecs (real/codec.hpp), so a payload means the same on both: fp16/bf16 casts (NCCL sums
// ncclHalf and ncclBfloat16 itself), int8 quantisation with a max-|x| scale, top-k with CUB's
// radix sort as (index bits, value) pairs, their scatter-add, and sign bits with a mean-|x| scale
// and the majority vote. Enqueued on a stream; scratch comes from cudaMallocAsync.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace dtsim::real::cuda {

// x (n floats) to 16-bit values, two per float slot (low half first); bf16: bfloat16, else fp16.
void pack_half(const float* x, std::int64_t n, bool bf16, float* wire, cudaStream_t s);
void unpack_half(const float* wire, std::int64_t n, bool bf16, float* out, cudaStream_t s);

// int8: scale = max |x| / 127 in *scale, q[e] = round(x[e] / scale); dequantised: out[e] += q[e] * scale.
void quantize_int8(const float* x, std::int64_t n, std::int8_t* q, float* scale, cudaStream_t s);
void dequantize_int8_add(const std::int8_t* q, const float* scale, std::int64_t n, float* out, cudaStream_t s);

// The k largest |x| (ties to the lower index) as k (index bits, value) pairs: 2k floats.
void topk_pairs(const float* x, std::int64_t n, std::int64_t k, float* payload, cudaStream_t s);
// out[index] += value for `pairs` pairs (the payloads of every worker one after another).
void scatter_pairs(const float* payload, std::int64_t pairs, float* out, cudaStream_t s);

// Random-k: the pairs of the k indices drawn on the host (index[j] ascending): 2k floats.
void gather_pairs(const float* x, const unsigned* index, std::int64_t k, float* payload, cudaStream_t s);

// Error feedback: x[e] = g[e] + residual[e] (residual null: a copy).
void add_residual(const float* g, const float* residual, std::int64_t n, float* x, cudaStream_t s);
// residual[e] = x[e] - scale * own[e] (PowerSGD: own is the sum over workers, scale 1 / workers).
void keep_residual(const float* x, const float* own, std::int64_t n, float scale, float* residual, cudaStream_t s);

// PowerSGD: modified Gram-Schmidt on the r columns of p (m x r, column-major), in one block.
void orthogonalise(float* p, int m, int r, cudaStream_t s);

// Sign: payload[0] = mean |x|, then bit e of word e / 32 set where x[e] >= 0: 1 + ceil(n / 32) floats.
void sign_pack(const float* x, std::int64_t n, float* payload, cudaStream_t s);
// Majority vote over `workers` payloads of `slot` floats: sign of the votes times the summed scales.
void sign_vote(const float* payloads, int workers, std::int64_t slot, std::int64_t n, float* out, cudaStream_t s);

}  // namespace dtsim::real::cuda
