// The Learner's codec of each method: one class per file of this folder, chosen here; the identity
// where the proxy does not compress a piece.
#include "learn/codecs/detail.hpp"

namespace dtsim::learn {
namespace {

class Identity final : public PieceCodec {
 public:
  Eigen::VectorXd encode(int, const Eigen::VectorXd& g, long) override { return g; }
};

}  // namespace

std::unique_ptr<PieceCodec> make_codec(const CompressionSpec& spec, Eigen::Index rows, Eigen::Index cols, int workers,
                                       uint64_t seed) {
  const Eigen::Index n = rows * cols;
  std::unique_ptr<PieceCodec> codec;
  switch (spec.method) {
    case CompressionMethod::None: break;
    case CompressionMethod::Fp16: codec = codecs::fp16(); break;
    case CompressionMethod::Bf16: codec = codecs::bf16(); break;
    case CompressionMethod::Int8: codec = codecs::int8(spec, n, workers, seed); break;
    case CompressionMethod::Qsgd: codec = codecs::qsgd(spec, n, workers, seed); break;
    case CompressionMethod::TopK: codec = codecs::topk(spec, n, workers, seed); break;
    case CompressionMethod::RandomK: codec = codecs::randomk(spec, n, workers, seed); break;
    case CompressionMethod::Sign: codec = codecs::sign(spec, n, workers, seed); break;
    case CompressionMethod::PowerSgd: codec = codecs::powersgd(spec, rows, cols, workers, seed); break;
  }
  if (!codec) codec = std::make_unique<Identity>();
  return codec;
}

}  // namespace dtsim::learn
