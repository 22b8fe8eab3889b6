// What the cuda halves share: compress as error feedback, encode and the residual; decompress as
// decoding every worker's slot.
#include "real/cuda/device_codec.hpp"

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "real/cuda/compress_kernels.hpp"

namespace dtsim::real::cuda {

void DeviceCodec::compress(DeviceUnit& u, int k, const float* grad, cudaStream_t s) const {
  add_residual(grad, u.residual, u.n, u.x, s);
  float* mine = u.wire + u.codec->slot() * u.me;
  encode(u, u.x, k, mine, s);
  if (u.residual) {
    decode(u, mine, 1, u.own, s);
    keep_residual(u.x, u.own, u.n, 1.0f, u.residual, s);
  }
}

void DeviceCodec::between(DeviceUnit& u, cudaStream_t) const {
  throw RuntimeError(
      fmt::format("the cuda backend exchanges {} payloads in one collective", method_name(u.codec->method())));
}

void DeviceCodec::decompress(DeviceUnit& u, float* out, cudaStream_t s) const { decode(u, u.wire, u.workers, out, s); }

}  // namespace dtsim::real::cuda
