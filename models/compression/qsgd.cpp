// QSGD with s levels: ceil(log2(s + 1)) magnitude bits plus a sign bit per element, and the
// fp32 norm; the packed buffer is AllReduced as a dense one (the quantisation is dense).
#include <cmath>

#include "models/compression/detail.hpp"

namespace dtsim::compression {
namespace {

double bits_per_element(const CompressionSpec& spec) { return std::ceil(std::log2(spec.levels + 1.0)) + 1; }

class Qsgd final : public Compressor {
 public:
  CompressionMethod method() const override { return CompressionMethod::Qsgd; }
  double payload_bytes(const Tensor& t, const CompressionSpec& spec) const override {
    return std::ceil(t.n * bits_per_element(spec) / 8) + 4;
  }
  // The norm (2 FLOPs, read), then scale, draw, round and pack (6 FLOPs, read, write the bits).
  CodecWork compress(const Tensor& t, const CompressionSpec& spec) const override {
    const CodecWork ef = error_feedback_work(t, spec);
    return CodecWork{8 * t.n + ef.flops, 2 * t.n * t.elem_bytes + payload_bytes(t, spec) + ef.mem_bytes};
  }
  // Unpack and rescale each payload (3 FLOPs per element), write the gradient.
  CodecWork decompress(const Tensor& t, const CompressionSpec& spec, int contributions) const override {
    return CodecWork{3 * t.n * contributions, contributions * payload_bytes(t, spec) + t.n * t.elem_bytes};
  }
};

}  // namespace

const Compressor& qsgd_compressor() {
  static const Qsgd instance;
  return instance;
}

}  // namespace dtsim::compression
