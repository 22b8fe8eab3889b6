// Top-k and random-k: k = ceil(ratio * n) (index, value) pairs (the index's bits in a float slot),
// AllGathered, scatter-added. Top-k keeps the largest |x| (ties to the lower index); random-k k
// distinct indices drawn from the worker's own stream (randomk_draw). Lossless when k = n.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "real/codecs/detail.hpp"

namespace dtsim::real::codecs {
namespace {

std::int64_t k_of(const CodecArgs& a) {
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(a.spec.ratio * static_cast<double>(a.n))), 1,
                                  std::max<std::int64_t>(1, a.n));
}

class Sparse : public Codec {
 public:
  explicit Sparse(const CodecArgs& a)
      : Codec(a.spec, a.n, a.workers, a.me, a.seed, 2 * k_of(a), a.spec.error_feedback) {
    k_ = k_of(a);
  }
  bool lossless() const override { return k_ == n_; }

  void decode(std::span<float> out) const override { scatter(out, 1); }
  void decompress(std::span<float> out) override {
    scatter(out, workers_);
    keep_residual();
  }

 protected:
  // The ascending indices this worker sends.
  virtual std::vector<std::int64_t> choose(int iteration) const = 0;

 private:
  void encode(int iteration) override {
    const std::vector<std::int64_t> chosen = choose(iteration);
    float* pairs = mine();
    for (size_t j = 0; j < chosen.size(); ++j) {
      const auto e = static_cast<size_t>(chosen[j]);
      pairs[2 * j] = index_bits(chosen[j]);
      pairs[2 * j + 1] = x_[e];
      own_[e] = x_[e];
    }
  }
  // The pairs of the wire's first `payloads` slots, added into a zeroed `out`.
  void scatter(std::span<float> out, int payloads) const {
    std::fill(out.begin(), out.end(), 0.0f);
    for (int w = 0; w < payloads; ++w) {
      const float* s = wire_.data() + slot_ * w;
      for (std::int64_t j = 0; j < k_; ++j) out[static_cast<size_t>(index_of(s[2 * j]))] += s[2 * j + 1];
    }
  }
};

class TopK final : public Sparse {
 public:
  using Sparse::Sparse;

 private:
  std::vector<std::int64_t> choose(int) const override {  // largest |x|, ties to the lower index
    std::vector<std::int64_t> order(static_cast<size_t>(n_));
    std::iota(order.begin(), order.end(), 0);
    auto larger = [&](std::int64_t a, std::int64_t b) {
      const float fa = std::fabs(x_[static_cast<size_t>(a)]), fb = std::fabs(x_[static_cast<size_t>(b)]);
      return fa != fb ? fa > fb : a < b;
    };
    std::nth_element(order.begin(), order.begin() + (k_ - 1), order.end(), larger);
    std::vector<std::int64_t> chosen(order.begin(), order.begin() + k_);
    std::sort(chosen.begin(), chosen.end());
    return chosen;
  }
};

class RandomK final : public Sparse {
 public:
  using Sparse::Sparse;

 private:
  std::vector<std::int64_t> choose(int iteration) const override { return randomk_draw(seed_, me_, iteration, n_, k_); }
};

}  // namespace

std::unique_ptr<Codec> topk(const CodecArgs& a) { return std::make_unique<TopK>(a); }
std::unique_ptr<Codec> randomk(const CodecArgs& a) { return std::make_unique<RandomK>(a); }

}  // namespace dtsim::real::codecs
