// signSGD (1 bit per element plus an fp32 scale, the mean |g|), with error feedback: signs do
// not add up in place, so the workers AllGather them and take a majority vote.
#include <cmath>

#include "models/compression/detail.hpp"

namespace dtsim::compression {
namespace {

class Sign final : public Compressor {
 public:
  CompressionMethod method() const override { return CompressionMethod::Sign; }
  double payload_bytes(const Tensor& t, const CompressionSpec&) const override { return std::ceil(t.n / 8) + 4; }
  // Mean |g| (2 FLOPs, read), then the sign bits packed (1 FLOP, read, write n / 8 bytes).
  CodecWork compress(const Tensor& t, const CompressionSpec& spec) const override {
    const CodecWork ef = error_feedback_work(t, spec);
    return CodecWork{3 * t.n + ef.flops, 2 * t.n * t.elem_bytes + payload_bytes(t, spec) + ef.mem_bytes};
  }
  // Majority vote: unpack and count every payload's bit (1 FLOP each), then sign times scale.
  CodecWork decompress(const Tensor& t, const CompressionSpec& spec, int contributions) const override {
    return CodecWork{t.n * (contributions + 2), contributions * payload_bytes(t, spec) + t.n * t.elem_bytes};
  }
};

}  // namespace

const Compressor& sign_compressor() {
  static const Sign instance;
  return instance;
}

}  // namespace dtsim::compression
