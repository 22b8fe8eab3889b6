// fp16 and bf16 on the device: pack_half into the wire (two halves per float slot), which NCCL
// AllReduces as ncclHalf or ncclBfloat16; unpack_half of the summed wire. No error feedback.
#include "real/cuda/codecs/detail.hpp"
#include "real/cuda/compress_kernels.hpp"

namespace dtsim::real::cuda::codecs {
namespace {

class Cast final : public DeviceCodec {
 public:
  explicit Cast(bool bf16) : bf16_(bf16) {}
  // An AllReduced wire holds the sum already: one payload, whatever the count.
  void decode(const DeviceUnit& u, const float* payloads, int, float* out, cudaStream_t s) const override {
    unpack_half(payloads, u.n, bf16_, out, s);
  }

 private:
  void encode(const DeviceUnit& u, const float* x, int, float* payload, cudaStream_t s) const override {
    pack_half(x, u.n, bf16_, payload, s);
  }
  bool bf16_;
};

}  // namespace

const DeviceCodec& fp16() {
  static const Cast instance(false);
  return instance;
}

const DeviceCodec& bf16() {
  static const Cast instance(true);
  return instance;
}

}  // namespace dtsim::real::cuda::codecs
