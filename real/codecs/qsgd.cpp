// QSGD (parameter-server pushes only): the L2 norm, then per element s levels by unbiased
// stochastic rounding of |x| / norm * s, in ceil(log2(s + 1)) magnitude bits and a sign bit,
// decoded one push at a time by the server. AllReduce jobs refuse it (the methods' table).
#include <algorithm>
#include <cmath>
#include <random>

#include "real/codecs/detail.hpp"

namespace dtsim::real::codecs {
namespace {

int bits_of(const CompressionSpec& spec) { return static_cast<int>(std::ceil(std::log2(spec.levels + 1.0))) + 1; }

class Qsgd final : public Codec {
 public:
  explicit Qsgd(const CodecArgs& a)
      : Codec(a.spec, a.n, a.workers, a.me, a.seed, 1 + (a.n * bits_of(a.spec) + 31) / 32, a.spec.error_feedback),
        bits_(bits_of(a.spec)) {}

  void decode(std::span<float> out) const override {
    const auto* words = reinterpret_cast<const std::uint32_t*>(wire_.data() + 1);
    for (size_t e = 0; e < static_cast<size_t>(n_); ++e) {
      std::uint32_t code = 0;
      for (int b = 0; b < bits_; ++b) {
        const std::uint64_t at = e * static_cast<std::uint64_t>(bits_) + static_cast<std::uint64_t>(b);
        code |= ((words[at / 32] >> (at % 32)) & 1u) << b;
      }
      out[e] =
          ((code & 1u) ? -1.0f : 1.0f) * static_cast<float>(code >> 1) * wire_[0] / static_cast<float>(spec_.levels);
    }
  }

 private:
  void encode(int iteration) override {
    const auto n = static_cast<size_t>(n_);
    float* payload = mine();
    double sum2 = 0;
    for (size_t e = 0; e < n; ++e) sum2 += static_cast<double>(x_[e]) * x_[e];
    const auto norm = static_cast<float>(std::sqrt(sum2));
    payload[0] = norm;
    std::fill(payload + 1, payload + slot_, 0.0f);
    auto* words = reinterpret_cast<std::uint32_t*>(payload + 1);
    std::mt19937_64 gen(seed_ ^ (static_cast<std::uint64_t>(iteration) << 32) ^ static_cast<std::uint64_t>(me_));
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    const int s = spec_.levels;
    for (size_t e = 0; e < n; ++e) {
      const float r = norm > 0 ? std::fabs(x_[e]) / norm * static_cast<float>(s) : 0.0f;
      auto level = static_cast<std::uint32_t>(std::floor(r));
      if (u(gen) < r - static_cast<float>(level)) ++level;  // unbiased stochastic rounding
      level = std::min<std::uint32_t>(level, static_cast<std::uint32_t>(s));
      const std::uint32_t code = level << 1 | (x_[e] < 0 ? 1u : 0u);
      for (int b = 0; b < bits_; ++b) {
        const std::uint64_t at = e * static_cast<std::uint64_t>(bits_) + static_cast<std::uint64_t>(b);
        if ((code >> b) & 1u) words[at / 32] |= 1u << (at % 32);
      }
      own_[e] = (x_[e] < 0 ? -1.0f : 1.0f) * static_cast<float>(level) * norm / static_cast<float>(s);
    }
  }
  int bits_;  // per element: the level's and the sign's
};

}  // namespace

std::unique_ptr<Codec> qsgd(const CodecArgs& a) { return std::make_unique<Qsgd>(a); }

}  // namespace dtsim::real::codecs
