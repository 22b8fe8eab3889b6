// Random-k: k = ceil(ratio * n) elements chosen at random, sent as (index, value) pairs and
// AllGathered like top-k. No selection pass: only the k draws and gathers (plus error feedback).
#include "models/compression/detail.hpp"

namespace dtsim::compression {
namespace {

class RandomK final : public Compressor {
 public:
  CompressionMethod method() const override { return CompressionMethod::RandomK; }
  double payload_bytes(const Tensor& t, const CompressionSpec& spec) const override { return 8 * sparse_k(t, spec); }
  // Draw an index (2 FLOPs), read the value, write the pair.
  CodecWork compress(const Tensor& t, const CompressionSpec& spec) const override {
    const double k = sparse_k(t, spec);
    const CodecWork ef = error_feedback_work(t, spec);
    return CodecWork{2 * k + ef.flops, k * (t.elem_bytes + 8) + ef.mem_bytes};
  }
  CodecWork decompress(const Tensor& t, const CompressionSpec& spec, int contributions) const override {
    return sparse_decode(t, sparse_k(t, spec), contributions);
  }
};

}  // namespace

const Compressor& randomk_compressor() {
  static const RandomK instance;
  return instance;
}

}  // namespace dtsim::compression
