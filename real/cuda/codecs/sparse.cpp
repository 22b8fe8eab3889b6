// Top-k and random-k on the device: topk_pairs (CUB's radix sort) or gather_pairs at the indices
// drawn on the host with the cpu codec's generator (randomk_draw: they depend on the seed, worker
// and iteration only) and uploaded before the run; decoding scatter-adds every payload's pairs.
#include <vector>

#include "real/cuda/codecs/detail.hpp"
#include "real/cuda/compress_kernels.hpp"
#include "real/cuda/cuda_check.hpp"

namespace dtsim::real::cuda::codecs {
namespace {

class Sparse : public DeviceCodec {
 public:
  void decode(const DeviceUnit& u, const float* payloads, int count, float* out, cudaStream_t s) const override {
    cudaMemsetAsync(out, 0, static_cast<size_t>(u.n) * 4, s);
    scatter_pairs(payloads, count * u.codec->k(), out, s);
  }
};

class TopK final : public Sparse {
  void encode(const DeviceUnit& u, const float* x, int, float* payload, cudaStream_t s) const override {
    topk_pairs(x, u.n, u.codec->k(), payload, s);
  }
};

class RandomK final : public Sparse {
 public:
  void prepare(DeviceUnit& u, int iterations, const DeviceAlloc& alloc) const override {
    const std::int64_t k = u.codec->k();
    std::vector<unsigned> draws(static_cast<size_t>(k) * static_cast<size_t>(iterations));
    for (int it = 0; it < iterations; ++it) {
      const std::vector<std::int64_t> chosen = randomk_draw(u.seed, u.me, it, u.n, k);
      for (size_t j = 0; j < chosen.size(); ++j) {
        draws[static_cast<size_t>(it) * static_cast<size_t>(k) + j] = static_cast<unsigned>(chosen[j]);
      }
    }
    u.draws = static_cast<unsigned*>(alloc(static_cast<std::int64_t>(draws.size()) * 4));
    check_cuda(cudaMemcpy(u.draws, draws.data(), draws.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
  }

 private:
  void encode(const DeviceUnit& u, const float* x, int k, float* payload, cudaStream_t s) const override {
    gather_pairs(x, u.draws + static_cast<std::int64_t>(k) * u.codec->k(), u.codec->k(), payload, s);
  }
};

}  // namespace

const DeviceCodec& topk() {
  static const TopK instance;
  return instance;
}

const DeviceCodec& randomk() {
  static const RandomK instance;
  return instance;
}

}  // namespace dtsim::real::cuda::codecs
