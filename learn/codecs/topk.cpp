// Top-k: the k = ceil(ratio * n) largest |p| (ties to the lower index), the rest held back.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "learn/codecs/detail.hpp"

namespace dtsim::learn::codecs {
namespace {

class TopK final : public WithFeedback {
 public:
  using WithFeedback::WithFeedback;
  VectorXd decode(int, const VectorXd& p, long) const override {
    const Eigen::Index k = sparse_k(spec_, p.size());
    std::vector<Eigen::Index> idx(static_cast<size_t>(p.size()));
    std::iota(idx.begin(), idx.end(), 0);
    // Largest |p| first; ties by index, so the choice is unique.
    std::nth_element(idx.begin(), idx.begin() + (k - 1), idx.end(), [&p](Eigen::Index a, Eigen::Index b) {
      const double x = std::abs(p[a]), y = std::abs(p[b]);
      return x != y ? x > y : a < b;
    });
    VectorXd d = VectorXd::Zero(p.size());
    for (Eigen::Index i = 0; i < k; ++i) d[idx[static_cast<size_t>(i)]] = p[idx[static_cast<size_t>(i)]];
    return d;
  }
};

}  // namespace

std::unique_ptr<PieceCodec> topk(const CompressionSpec& spec, Eigen::Index n, int workers, uint64_t seed) {
  return std::make_unique<TopK>(spec, n, workers, seed);
}

}  // namespace dtsim::learn::codecs
