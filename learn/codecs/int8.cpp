// Int8: a max-|p| scale (max |p| / 127), each value rounded to a multiple of it.

#include "learn/codecs/detail.hpp"

namespace dtsim::learn::codecs {
namespace {

class Int8 final : public WithFeedback {
 public:
  using WithFeedback::WithFeedback;
  VectorXd decode(int, const VectorXd& p, long) const override {
    const double scale = p.cwiseAbs().maxCoeff() / 127.0;
    if (scale == 0) return VectorXd::Zero(p.size());
    return ((p / scale).array().round().cwiseMax(-127.0).cwiseMin(127.0) * scale).matrix();
  }
};

}  // namespace

std::unique_ptr<PieceCodec> int8(const CompressionSpec& spec, Eigen::Index n, int workers, uint64_t seed) {
  return std::make_unique<Int8>(spec, n, workers, seed);
}

}  // namespace dtsim::learn::codecs
