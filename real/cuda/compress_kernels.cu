// The cuda backend's compression kernels (see compress_kernels.hpp).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include "real/cuda/compress_kernels.hpp"
#include "real/cuda/launch_shape.cuh"

namespace dtsim::real::cuda {
namespace {

#define DTSIM_GRID_LOOP(i, n)                                                                      \
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)

__global__ void pack_half_kernel(const float* x, std::int64_t n, bool bf16, unsigned short* wire) {
  DTSIM_GRID_LOOP(i, n) {
    wire[i] = bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(x[i])) : __half_as_ushort(__float2half_rn(x[i]));
  }
}

__global__ void unpack_half_kernel(const unsigned short* wire, std::int64_t n, bool bf16, float* out) {
  DTSIM_GRID_LOOP(i, n) {
    out[i] = bf16 ? __bfloat162float(__ushort_as_bfloat16(wire[i])) : __half2float(__ushort_as_half(wire[i]));
  }
}

struct AbsValue {
  __device__ float operator()(float v) const { return fabsf(v); }
};

__global__ void quantize_kernel(const float* x, std::int64_t n, std::int8_t* q, float* scale) {
  const float s = *scale;
  DTSIM_GRID_LOOP(i, n) { q[i] = static_cast<std::int8_t>(s > 0 ? __float2int_rn(x[i] / s) : 0); }
}

__global__ void to_scale_kernel(float* scale) { *scale = *scale / 127.0f; }

__global__ void dequantize_kernel(const std::int8_t* q, const float* scale, std::int64_t n, float* out) {
  const float s = *scale;
  DTSIM_GRID_LOOP(i, n) { out[i] += static_cast<float>(q[i]) * s; }
}

__global__ void abs_index_kernel(const float* x, std::int64_t n, float* keys, unsigned* index) {
  DTSIM_GRID_LOOP(i, n) {
    keys[i] = fabsf(x[i]);
    index[i] = static_cast<unsigned>(i);
  }
}

__global__ void pairs_kernel(const float* x, const unsigned* index, std::int64_t k, float* payload) {
  DTSIM_GRID_LOOP(j, k) {
    payload[2 * j] = __uint_as_float(index[j]);
    payload[2 * j + 1] = x[index[j]];
  }
}

__global__ void scatter_kernel(const float* payload, std::int64_t pairs, float* out) {
  DTSIM_GRID_LOOP(j, pairs) { atomicAdd(out + __float_as_uint(payload[2 * j]), payload[2 * j + 1]); }
}

__global__ void add_residual_kernel(const float* g, const float* residual, std::int64_t n, float* x) {
  DTSIM_GRID_LOOP(i, n) { x[i] = residual ? g[i] + residual[i] : g[i]; }
}

__global__ void keep_residual_kernel(const float* x, const float* own, std::int64_t n, float scale, float* residual) {
  DTSIM_GRID_LOOP(i, n) { residual[i] = x[i] - scale * own[i]; }
}

// The sum of every thread's v, in every thread (blockDim.x a power of two, kThreads at most).
__device__ float block_sum(float v, float* partial) {
  partial[threadIdx.x] = v;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  const float total = partial[0];
  __syncthreads();
  return total;
}

__global__ void gram_schmidt_kernel(float* p, int m, int r) {
  __shared__ float partial[kThreads];
  for (int j = 0; j < r; ++j) {
    float* pj = p + static_cast<std::int64_t>(j) * m;
    for (int i = 0; i < j; ++i) {
      const float* pi = p + static_cast<std::int64_t>(i) * m;
      float dot = 0;
      for (int e = threadIdx.x; e < m; e += blockDim.x) dot += pi[e] * pj[e];
      dot = block_sum(dot, partial);
      for (int e = threadIdx.x; e < m; e += blockDim.x) pj[e] -= dot * pi[e];
      __syncthreads();
    }
    float norm = 0;
    for (int e = threadIdx.x; e < m; e += blockDim.x) norm += pj[e] * pj[e];
    norm = sqrtf(block_sum(norm, partial));
    if (norm > 0) {
      for (int e = threadIdx.x; e < m; e += blockDim.x) pj[e] /= norm;
    }
    __syncthreads();
  }
}

// One warp packs 32 consecutive signs into a word with a ballot.
__global__ void sign_bits_kernel(const float* x, std::int64_t n, unsigned* words) {
  const std::int64_t warps = (n + 31) / 32;
  const int lane = threadIdx.x % 32;
  for (std::int64_t w = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) / 32; w < warps;
       w += static_cast<std::int64_t>(gridDim.x) * blockDim.x / 32) {
    const std::int64_t e = w * 32 + lane;
    const unsigned bits = __ballot_sync(0xffffffffu, e < n && x[e] >= 0);
    if (lane == 0) words[w] = bits;
  }
}

__global__ void mean_kernel(float* sum, std::int64_t n) { *sum = n > 0 ? *sum / static_cast<float>(n) : 0; }

__global__ void vote_kernel(const float* payloads, int workers, std::int64_t slot, std::int64_t n, float* out) {
  float scales = 0;
  for (int w = 0; w < workers; ++w) scales += payloads[w * slot];
  DTSIM_GRID_LOOP(e, n) {
    int vote = 0;
    for (int w = 0; w < workers; ++w) {
      const unsigned word = __float_as_uint(payloads[w * slot + 1 + e / 32]);
      vote += (word >> (e % 32)) & 1u ? 1 : -1;
    }
    out[e] = vote > 0 ? scales : vote < 0 ? -scales : 0.0f;
  }
}

// Scratch for CUB, from the stream-ordered allocator.
template <typename Run>
void with_temp(cudaStream_t s, Run run) {
  size_t bytes = 0;
  run(nullptr, bytes);
  void* temp = nullptr;
  cudaMallocAsync(&temp, bytes, s);
  run(temp, bytes);
  cudaFreeAsync(temp, s);
}

}  // namespace

void pack_half(const float* x, std::int64_t n, bool bf16, float* wire, cudaStream_t s) {
  pack_half_kernel<<<blocks(n), kThreads, 0, s>>>(x, n, bf16, reinterpret_cast<unsigned short*>(wire));
}

void unpack_half(const float* wire, std::int64_t n, bool bf16, float* out, cudaStream_t s) {
  unpack_half_kernel<<<blocks(n), kThreads, 0, s>>>(reinterpret_cast<const unsigned short*>(wire), n, bf16, out);
}

void quantize_int8(const float* x, std::int64_t n, std::int8_t* q, float* scale, cudaStream_t s) {
  const auto abs_x = thrust::make_transform_iterator(x, AbsValue{});
  with_temp(s, [&](void* temp, size_t& bytes) { cub::DeviceReduce::Max(temp, bytes, abs_x, scale, n, s); });
  to_scale_kernel<<<1, 1, 0, s>>>(scale);
  quantize_kernel<<<blocks(n), kThreads, 0, s>>>(x, n, q, scale);
}

void dequantize_int8_add(const std::int8_t* q, const float* scale, std::int64_t n, float* out, cudaStream_t s) {
  dequantize_kernel<<<blocks(n), kThreads, 0, s>>>(q, scale, n, out);
}

void topk_pairs(const float* x, std::int64_t n, std::int64_t k, float* payload, cudaStream_t s) {
  float *keys = nullptr, *sorted_keys = nullptr;
  unsigned *index = nullptr, *sorted_index = nullptr;
  const size_t bytes = static_cast<size_t>(n) * 4;
  cudaMallocAsync(&keys, bytes, s);
  cudaMallocAsync(&sorted_keys, bytes, s);
  cudaMallocAsync(&index, bytes, s);
  cudaMallocAsync(&sorted_index, bytes, s);
  abs_index_kernel<<<blocks(n), kThreads, 0, s>>>(x, n, keys, index);
  // Radix sort is stable: equal |x| keep index order, so ties go to the lower index as on the cpu.
  with_temp(s, [&](void* temp, size_t& temp_bytes) {
    cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, keys, sorted_keys, index, sorted_index, n, 0, 32, s);
  });
  pairs_kernel<<<blocks(k), kThreads, 0, s>>>(x, sorted_index, k, payload);
  for (void* p : {static_cast<void*>(keys), static_cast<void*>(sorted_keys), static_cast<void*>(index),
                  static_cast<void*>(sorted_index)}) {
    cudaFreeAsync(p, s);
  }
}

void gather_pairs(const float* x, const unsigned* index, std::int64_t k, float* payload, cudaStream_t s) {
  pairs_kernel<<<blocks(k), kThreads, 0, s>>>(x, index, k, payload);
}

void add_residual(const float* g, const float* residual, std::int64_t n, float* x, cudaStream_t s) {
  add_residual_kernel<<<blocks(n), kThreads, 0, s>>>(g, residual, n, x);
}

void keep_residual(const float* x, const float* own, std::int64_t n, float scale, float* residual, cudaStream_t s) {
  keep_residual_kernel<<<blocks(n), kThreads, 0, s>>>(x, own, n, scale, residual);
}

void orthogonalise(float* p, int m, int r, cudaStream_t s) { gram_schmidt_kernel<<<1, kThreads, 0, s>>>(p, m, r); }

void scatter_pairs(const float* payload, std::int64_t pairs, float* out, cudaStream_t s) {
  scatter_kernel<<<blocks(pairs), kThreads, 0, s>>>(payload, pairs, out);
}

void sign_pack(const float* x, std::int64_t n, float* payload, cudaStream_t s) {
  const auto abs_x = thrust::make_transform_iterator(x, AbsValue{});
  with_temp(s, [&](void* temp, size_t& bytes) { cub::DeviceReduce::Sum(temp, bytes, abs_x, payload, n, s); });
  mean_kernel<<<1, 1, 0, s>>>(payload, n);
  sign_bits_kernel<<<blocks(n), kThreads, 0, s>>>(x, n, reinterpret_cast<unsigned*>(payload + 1));
}

void sign_vote(const float* payloads, int workers, std::int64_t slot, std::int64_t n, float* out, cudaStream_t s) {
  vote_kernel<<<blocks(n), kThreads, 0, s>>>(payloads, workers, slot, n, out);
}

}  // namespace dtsim::real::cuda
