// Sign on the device: sign_pack (the mean |x|, then the sign bits), AllGathered; sign_vote takes
// the majority vote of the payloads' bits times their summed scales.
#include "real/cuda/codecs/detail.hpp"
#include "real/cuda/compress_kernels.hpp"

namespace dtsim::real::cuda::codecs {
namespace {

class Sign final : public DeviceCodec {
 public:
  void decode(const DeviceUnit& u, const float* payloads, int count, float* out, cudaStream_t s) const override {
    sign_vote(payloads, count, u.codec->slot(), u.n, out, s);
  }

 private:
  void encode(const DeviceUnit& u, const float* x, int, float* payload, cudaStream_t s) const override {
    sign_pack(x, u.n, payload, s);
  }
};

}  // namespace

const DeviceCodec& sign() {
  static const Sign instance;
  return instance;
}

}  // namespace dtsim::real::cuda::codecs
