// No compression: the dense gradient, AllReduced as it is. Costs nothing.
#include "models/compression/detail.hpp"

namespace dtsim::compression {
namespace {

class NoCompression final : public Compressor {
 public:
  CompressionMethod method() const override { return CompressionMethod::None; }
  double payload_bytes(const Tensor& t, const CompressionSpec&) const override { return t.n * t.elem_bytes; }
  CodecWork compress(const Tensor&, const CompressionSpec&) const override { return {}; }
  CodecWork decompress(const Tensor&, const CompressionSpec&, int) const override { return {}; }
  bool compresses(const Tensor&, const CompressionSpec&) const override { return false; }
};

}  // namespace

const Compressor& none_compressor() {
  static const NoCompression instance;
  return instance;
}

}  // namespace dtsim::compression
