// fp16 and bf16 casts: 2 bytes per element, AllReduced in the half-precision dtype (DDP's
// fp16_compress_hook and bf16_compress_hook). One class, two methods.
#include "models/compression/detail.hpp"

namespace dtsim::compression {
namespace {

class Cast final : public Compressor {
 public:
  explicit Cast(CompressionMethod method) : method_(method) {}
  CompressionMethod method() const override { return method_; }
  double payload_bytes(const Tensor& t, const CompressionSpec&) const override { return 2 * t.n; }
  // One conversion per element: read the gradient, write 2 bytes. No error feedback (as DDP's hooks).
  CodecWork compress(const Tensor& t, const CompressionSpec&) const override {
    return CodecWork{t.n, t.n * (t.elem_bytes + 2)};
  }
  // Convert back and divide by the worker count: read 2 bytes, write the gradient.
  CodecWork decompress(const Tensor& t, const CompressionSpec&, int contributions) const override {
    return CodecWork{2 * t.n * contributions, t.n * (2 * contributions + t.elem_bytes)};
  }

 private:
  CompressionMethod method_;
};

}  // namespace

const Compressor& fp16_compressor() {
  static const Cast instance(CompressionMethod::Fp16);
  return instance;
}

const Compressor& bf16_compressor() {
  static const Cast instance(CompressionMethod::Bf16);
  return instance;
}

}  // namespace dtsim::compression
