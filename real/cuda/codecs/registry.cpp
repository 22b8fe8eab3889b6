// The cuda half of each method: one class per file of this folder, chosen here; the methods'
// table (models/compression/method.cpp) says where the cuda backend carries each out, and
// tests/real/device_codec_table_test.cpp holds this switch to it.
#include "real/cuda/codecs/detail.hpp"

namespace dtsim::real::cuda {

const DeviceCodec* device_codec(CompressionMethod m) {
  switch (m) {
    case CompressionMethod::None:
    case CompressionMethod::Qsgd: break;
    case CompressionMethod::Fp16: return &codecs::fp16();
    case CompressionMethod::Bf16: return &codecs::bf16();
    case CompressionMethod::Int8: return &codecs::int8();
    case CompressionMethod::TopK: return &codecs::topk();
    case CompressionMethod::RandomK: return &codecs::randomk();
    case CompressionMethod::Sign: return &codecs::sign();
    case CompressionMethod::PowerSgd: return &codecs::powersgd();
  }
  return nullptr;
}

}  // namespace dtsim::real::cuda
