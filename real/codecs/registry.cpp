// The codec of each method: one class per file of this folder, chosen here from the methods'
// table (models/compression/method.cpp), whose `cpu` entry says where the cpu backend runs it.
#include <fmt/format.h>

#include "core/base/error.hpp"
#include "real/codecs/detail.hpp"

namespace dtsim::real {

std::unique_ptr<Codec> make_codec(const CompressionSpec& spec, std::int64_t n, int workers, int me,
                                  std::uint64_t seed) {
  const codecs::CodecArgs a{spec, n, workers, me, seed};
  switch (spec.method) {
    case CompressionMethod::None: break;
    case CompressionMethod::Fp16: return codecs::fp16(a);
    case CompressionMethod::Bf16: return codecs::bf16(a);
    case CompressionMethod::Int8: return codecs::int8(a);
    case CompressionMethod::Qsgd: return codecs::qsgd(a);
    case CompressionMethod::TopK: return codecs::topk(a);
    case CompressionMethod::RandomK: return codecs::randomk(a);
    case CompressionMethod::Sign: return codecs::sign(a);
    case CompressionMethod::PowerSgd: return codecs::powersgd(a);
  }
  throw RuntimeError(fmt::format("no codec for compression method {}", method_name(spec.method)));
}

}  // namespace dtsim::real
