// Int8 on the device (parameter-server pushes): quantize_int8 (the max-|x| scale, then a byte per
// element), sent with ncclSend; the server's dequantize_int8_add into a zeroed inbox.
#include <cstdint>

#include "real/cuda/codecs/detail.hpp"
#include "real/cuda/compress_kernels.hpp"

namespace dtsim::real::cuda::codecs {
namespace {

class Int8 final : public DeviceCodec {
 public:
  void decode(const DeviceUnit& u, const float* payloads, int, float* out, cudaStream_t s) const override {
    cudaMemsetAsync(out, 0, static_cast<size_t>(u.n) * 4, s);
    dequantize_int8_add(reinterpret_cast<const std::int8_t*>(payloads + 1), payloads, u.n, out, s);
  }

 private:
  void encode(const DeviceUnit& u, const float* x, int, float* payload, cudaStream_t s) const override {
    quantize_int8(x, u.n, reinterpret_cast<std::int8_t*>(payload + 1), payload, s);
  }
};

}  // namespace

const DeviceCodec& int8() {
  static const Int8 instance;
  return instance;
}

}  // namespace dtsim::real::cuda::codecs
