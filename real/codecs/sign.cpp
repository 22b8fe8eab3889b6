// Sign (signSGD with majority vote): the mean |x| then one bit per element (1: x >= 0), in 32-bit
// words, AllGathered; the combined gradient is the majority vote of the signs times the summed
// scales (0 on a tie).
#include <algorithm>
#include <bit>
#include <cmath>

#include "real/codecs/detail.hpp"

namespace dtsim::real::codecs {
namespace {

class Sign final : public Codec {
 public:
  explicit Sign(const CodecArgs& a)
      : Codec(a.spec, a.n, a.workers, a.me, a.seed, 1 + (a.n + 31) / 32, a.spec.error_feedback) {}

  void decode(std::span<float> out) const override {
    for (std::int64_t e = 0; e < n_; ++e) out[static_cast<size_t>(e)] = bit(0, e) ? wire_[0] : -wire_[0];
  }
  void decompress(std::span<float> out) override {
    float scales = 0;
    for (int w = 0; w < workers_; ++w) scales += wire_[static_cast<size_t>(slot_ * w)];
    for (std::int64_t e = 0; e < n_; ++e) {
      int vote = 0;
      for (int w = 0; w < workers_; ++w) vote += bit(w, e) ? 1 : -1;
      out[static_cast<size_t>(e)] = vote > 0 ? scales : vote < 0 ? -scales : 0.0f;
    }
    keep_residual();
  }
  // The vote of the summed signs times the summed scales, within 1e-4 of them: the cuda kernels
  // sum |x| in float, this codec in double.
  Expected expected(const GroupSum& sum) const override {
    const auto n = static_cast<size_t>(n_);
    std::vector<float> votes(n + 1);
    for (size_t e = 0; e < n; ++e) votes[e] = own_[e] >= 0 ? 1 : -1;
    votes.back() = own_.empty() ? 0.0f : std::fabs(own_.front());  // this worker's scale
    sum(std::span<float>(votes));
    const float scales = votes.back();
    Expected out{std::vector<float>(n), 1e-4f * std::fabs(scales)};
    for (size_t e = 0; e < n; ++e) out.values[e] = votes[e] > 0 ? scales : votes[e] < 0 ? -scales : 0.0f;
    return out;
  }

 private:
  void encode(int) override {
    const auto n = static_cast<size_t>(n_);
    float* payload = mine();
    double total = 0;
    for (size_t e = 0; e < n; ++e) total += std::fabs(x_[e]);
    const auto scale = static_cast<float>(total / static_cast<double>(std::max<std::int64_t>(1, n_)));
    payload[0] = scale;
    std::vector<std::uint32_t> words(static_cast<size_t>(slot_ - 1), 0u);
    for (size_t e = 0; e < n; ++e) {
      if (x_[e] >= 0) words[e / 32] |= 1u << (e % 32);
      own_[e] = x_[e] >= 0 ? scale : -scale;
    }
    for (size_t w = 0; w < words.size(); ++w) payload[1 + w] = std::bit_cast<float>(words[w]);
  }
  // Worker w's sign bit of element e.
  bool bit(int w, std::int64_t e) const {
    const std::uint32_t word = std::bit_cast<std::uint32_t>(wire_[static_cast<size_t>(slot_ * w + 1 + e / 32)]);
    return ((word >> (e % 32)) & 1u) != 0;
  }
};

}  // namespace

std::unique_ptr<Codec> sign(const CodecArgs& a) { return std::make_unique<Sign>(a); }

}  // namespace dtsim::real::codecs
