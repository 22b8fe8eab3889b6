// fp16 and bf16: each value rounded to half precision (round to nearest even), two per float
// slot, AllReduced with a half-precision sum (reduce_into). No error feedback, as DDP's hooks.
// Lossless for values exact in half precision (small integers).
#include <fmt/format.h>

#include "real/codecs/detail.hpp"

namespace dtsim::real::codecs {
namespace {

class Cast final : public Codec {
 public:
  Cast(const CodecArgs& a, bool half) : Codec(a.spec, a.n, a.workers, a.me, a.seed, 0, false), half_(half) {
    wire_.assign(static_cast<size_t>((a.n + 1) / 2), 0.0f);
  }
  Reduction reduction() const override { return half_ ? Reduction::Half : Reduction::Bfloat16; }
  bool lossless() const override { return true; }

  void decode(std::span<float> out) const override {  // an AllReduced wire holds the sum already
    for (std::int64_t e = 0; e < n_; ++e) {
      const std::uint16_t h = get16(wire_.data(), e);
      out[static_cast<size_t>(e)] = half_ ? from_half(h) : from_bfloat16(h);
    }
  }
  void decompress(std::span<float> out) override { decode(out); }

 private:
  void encode(int) override {
    for (std::int64_t e = 0; e < n_; ++e) {
      const auto i = static_cast<size_t>(e);
      const std::uint16_t h = half_ ? to_half(x_[i]) : to_bfloat16(x_[i]);
      put16(wire_.data(), e, h);
      own_[i] = half_ ? from_half(h) : from_bfloat16(h);
    }
  }
  bool half_;
};

}  // namespace

std::unique_ptr<Codec> fp16(const CodecArgs& a) { return std::make_unique<Cast>(a, true); }
std::unique_ptr<Codec> bf16(const CodecArgs& a) { return std::make_unique<Cast>(a, false); }

}  // namespace dtsim::real::codecs
