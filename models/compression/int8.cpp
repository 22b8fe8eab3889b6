// int8: one byte per element plus one fp32 scale (max |g| / 127), AllReduced as a dense buffer.
#include "models/compression/detail.hpp"

namespace dtsim::compression {
namespace {

class Int8 final : public Compressor {
 public:
  CompressionMethod method() const override { return CompressionMethod::Int8; }
  double payload_bytes(const Tensor& t, const CompressionSpec&) const override { return t.n + 4; }
  // Two passes: max |g| (1 FLOP, read), then scale and round (2 FLOPs, read, write 1 byte).
  CodecWork compress(const Tensor& t, const CompressionSpec& spec) const override {
    const CodecWork ef = error_feedback_work(t, spec);
    return CodecWork{3 * t.n + ef.flops, t.n * (2 * t.elem_bytes + 1) + ef.mem_bytes};
  }
  // Rescale each payload (2 FLOPs per element), write the gradient.
  CodecWork decompress(const Tensor& t, const CompressionSpec&, int contributions) const override {
    return CodecWork{2 * t.n * contributions, t.n * (contributions + t.elem_bytes)};
  }
};

}  // namespace

const Compressor& int8_compressor() {
  static const Int8 instance;
  return instance;
}

}  // namespace dtsim::compression
