// Random-k: k = ceil(ratio * n) distinct elements drawn from the worker's stream, the rest held back.
#include <numeric>

#include "learn/codecs/detail.hpp"

namespace dtsim::learn::codecs {
namespace {

class RandomK final : public WithFeedback {
 public:
  using WithFeedback::WithFeedback;
  VectorXd decode(int w, const VectorXd& p, long round) const override {
    const Eigen::Index k = sparse_k(spec_, p.size());
    std::vector<Eigen::Index> idx(static_cast<size_t>(p.size()));
    std::iota(idx.begin(), idx.end(), 0);
    auto gen = rng(w, round);
    VectorXd d = VectorXd::Zero(p.size());
    for (Eigen::Index i = 0; i < k; ++i) {  // partial Fisher-Yates: k distinct indices
      std::uniform_int_distribution<Eigen::Index> pick(i, p.size() - 1);
      std::swap(idx[static_cast<size_t>(i)], idx[static_cast<size_t>(pick(gen))]);
      d[idx[static_cast<size_t>(i)]] = p[idx[static_cast<size_t>(i)]];
    }
    return d;
  }
};

}  // namespace

std::unique_ptr<PieceCodec> randomk(const CompressionSpec& spec, Eigen::Index n, int workers, uint64_t seed) {
  return std::make_unique<RandomK>(spec, n, workers, seed);
}

}  // namespace dtsim::learn::codecs
