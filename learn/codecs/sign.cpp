// Sign: signSGD with error feedback and a majority vote.
#include <cmath>

#include "learn/codecs/detail.hpp"

namespace dtsim::learn::codecs {
namespace {

// signSGD with error feedback: the signs and one scale, mean |p| (so the decoded tensor keeps the
// l1 norm); receivers take the majority vote of the signs times the mean scale.
class Sign final : public WithFeedback {
 public:
  using WithFeedback::WithFeedback;
  VectorXd decode(int, const VectorXd& p, long) const override {
    const double scale = p.cwiseAbs().mean();
    return p.unaryExpr([scale](double v) { return v > 0 ? scale : (v < 0 ? -scale : 0.0); });
  }
  VectorXd combine(const std::vector<VectorXd>& decoded) const override {
    VectorXd votes = VectorXd::Zero(decoded.front().size());
    double scale = 0;
    for (const VectorXd& d : decoded) {
      votes += d.unaryExpr([](double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); });
      scale += d.cwiseAbs().maxCoeff();
    }
    scale /= static_cast<double>(decoded.size());
    return votes.unaryExpr([scale](double v) { return v > 0 ? scale : (v < 0 ? -scale : 0.0); });
  }
};

}  // namespace

std::unique_ptr<PieceCodec> sign(const CompressionSpec& spec, Eigen::Index n, int workers, uint64_t seed) {
  return std::make_unique<Sign>(spec, n, workers, seed);
}

}  // namespace dtsim::learn::codecs
