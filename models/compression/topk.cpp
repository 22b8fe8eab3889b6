// Top-k: the k = ceil(ratio * n) largest |g| as (4-byte index, 4-byte value) pairs. Sparse
// payloads do not add up in place, so the workers AllGather them (N * 8k bytes in all, growing
// with N) and each scatter-adds the N payloads.
#include "models/compression/detail.hpp"

namespace dtsim::compression {
namespace {

class TopK final : public Compressor {
 public:
  CompressionMethod method() const override { return CompressionMethod::TopK; }
  double payload_bytes(const Tensor& t, const CompressionSpec& spec) const override { return 8 * sparse_k(t, spec); }
  // |g| (1 FLOP) then a radix select over four 8-bit digits (1 FLOP and one read of the tensor
  // per pass), then the k pairs written.
  CodecWork compress(const Tensor& t, const CompressionSpec& spec) const override {
    const CodecWork ef = error_feedback_work(t, spec);
    return CodecWork{5 * t.n + ef.flops, 5 * t.n * t.elem_bytes + payload_bytes(t, spec) + ef.mem_bytes};
  }
  CodecWork decompress(const Tensor& t, const CompressionSpec& spec, int contributions) const override {
    return sparse_decode(t, sparse_k(t, spec), contributions);
  }
};

}  // namespace

const Compressor& topk_compressor() {
  static const TopK instance;
  return instance;
}

}  // namespace dtsim::compression
