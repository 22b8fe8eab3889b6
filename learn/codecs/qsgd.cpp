// QSGD: s levels of |p| / ||p||, by unbiased stochastic rounding from the worker's stream.
#include <cmath>

#include "learn/codecs/detail.hpp"

namespace dtsim::learn::codecs {
namespace {

class Qsgd final : public WithFeedback {
 public:
  using WithFeedback::WithFeedback;
  VectorXd decode(int w, const VectorXd& p, long round) const override {
    const double norm = p.norm();
    VectorXd d = VectorXd::Zero(p.size());
    if (norm == 0) return d;
    auto gen = rng(w, round);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double s = spec_.levels;
    for (Eigen::Index i = 0; i < p.size(); ++i) {
      const double level = std::abs(p[i]) / norm * s;
      const double lower = std::floor(level);
      const double xi = lower + (u(gen) < level - lower ? 1.0 : 0.0);
      d[i] = (p[i] < 0 ? -1.0 : 1.0) * norm * xi / s;
    }
    return d;
  }
};

}  // namespace

std::unique_ptr<PieceCodec> qsgd(const CompressionSpec& spec, Eigen::Index n, int workers, uint64_t seed) {
  return std::make_unique<Qsgd>(spec, n, workers, seed);
}

}  // namespace dtsim::learn::codecs
