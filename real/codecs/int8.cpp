// Int8 (parameter-server pushes only): a max-|x| scale (scale = max |x| / 127), then
// q = round(x / scale) in one byte each, decoded one push at a time by the server. Packed integers
// cannot be summed by a float collective, so AllReduce jobs refuse it (the methods' table).
#include <algorithm>
#include <cmath>

#include "real/codecs/detail.hpp"

namespace dtsim::real::codecs {
namespace {

class Int8 final : public Codec {
 public:
  explicit Int8(const CodecArgs& a)
      : Codec(a.spec, a.n, a.workers, a.me, a.seed, 1 + (a.n + 3) / 4, a.spec.error_feedback) {}

  void decode(std::span<float> out) const override {
    const auto* bytes = reinterpret_cast<const std::int8_t*>(wire_.data() + 1);
    for (size_t e = 0; e < static_cast<size_t>(n_); ++e) out[e] = static_cast<float>(bytes[e]) * wire_[0];
  }

 private:
  void encode(int) override {
    const auto n = static_cast<size_t>(n_);
    float* payload = mine();
    float max_abs = 0;
    for (size_t e = 0; e < n; ++e) max_abs = std::max(max_abs, std::fabs(x_[e]));
    const float scale = max_abs / 127.0f;
    payload[0] = scale;
    auto* bytes = reinterpret_cast<std::int8_t*>(payload + 1);
    for (size_t e = 0; e < n; ++e) {
      const auto q = static_cast<std::int8_t>(scale > 0 ? std::clamp(std::lround(x_[e] / scale), -127L, 127L) : 0);
      bytes[e] = q;
      own_[e] = static_cast<float>(q) * scale;
    }
  }
};

}  // namespace

std::unique_ptr<Codec> int8(const CodecArgs& a) { return std::make_unique<Int8>(a); }

}  // namespace dtsim::real::codecs
