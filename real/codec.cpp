// What every codec shares (see codec.hpp): the steps around a method's encode, error feedback,
// the half-precision conversions and sums, random-k's draws.
#include "real/codec.hpp"

#include <bit>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "real/codecs/detail.hpp"

namespace dtsim::real {
using codecs::get16;
using codecs::put16;

std::uint16_t to_half(float value) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  if ((x & 0x7fffffffu) > 0x7f800000u) return sign | 0x7e00u;  // NaN
  const int exp = static_cast<int>((x >> 23) & 0xffu) - 127 + 15;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp >= 31) return sign | 0x7c00u;  // overflow: infinity
  if (exp <= 0) {                        // subnormal or zero
    if (exp < -10) return sign;
    mant |= 0x800000u;
    const int shift = 14 - exp;
    std::uint32_t half = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13);
  const std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // a carry may reach infinity, as it should
  return static_cast<std::uint16_t>(sign | half);
}

float from_half(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const int exp = (h >> 10) & 0x1f;
  std::uint32_t mant = h & 0x3ffu;
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | (static_cast<std::uint32_t>(exp - 15 + 127) << 23) | (mant << 13));
}

std::uint16_t to_bfloat16(float value) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

float from_bfloat16(std::uint16_t h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16); }

void reduce_into(Reduction r, float* into, const float* from, std::int64_t n) {
  if (r == Reduction::Float) {
    for (std::int64_t i = 0; i < n; ++i) into[i] += from[i];
    return;
  }
  const bool half = r == Reduction::Half;
  for (std::int64_t i = 0; i < 2 * n; ++i) {
    const float a = half ? from_half(get16(into, i)) : from_bfloat16(get16(into, i));
    const float b = half ? from_half(get16(from, i)) : from_bfloat16(get16(from, i));
    put16(into, i, half ? to_half(a + b) : to_bfloat16(a + b));
  }
}

std::vector<std::int64_t> randomk_draw(std::uint64_t seed, int me, int iteration, std::int64_t n, std::int64_t k) {
  std::mt19937_64 gen(seed ^ (0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(me + 1)) ^
                      (static_cast<std::uint64_t>(iteration) << 32));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::int64_t> chosen;
  std::int64_t need = k;
  for (std::int64_t e = 0; e < n && need > 0; ++e) {
    if (u(gen) * static_cast<double>(n - e) < static_cast<double>(need)) {
      chosen.push_back(e);
      --need;
    }
  }
  return chosen;
}

std::string_view exchange_label(Exchange e) {
  switch (e) {
    case Exchange::AllReduce: return "allreduce";
    case Exchange::AllGather: return "allgather";
    case Exchange::LowRank: return "low-rank allreduces";
  }
  return "";
}

Codec::Codec(const CompressionSpec& spec, std::int64_t n, int workers, int me, std::uint64_t seed, std::int64_t slot,
             bool feedback)
    : spec_(spec),
      exchange_(method_traits(spec.method).exchange),
      n_(n),
      workers_(workers),
      me_(me),
      seed_(seed),
      slot_(slot) {
  if (feedback) residual_.assign(static_cast<size_t>(n), 0.0f);
  if (slot_ > 0) wire_.assign(static_cast<size_t>(slot_ * workers), 0.0f);
}

void Codec::compress(std::span<const float> grad, int iteration) {
  const auto n = static_cast<size_t>(n_);
  x_.assign(grad.begin(), grad.end());
  if (!residual_.empty()) {
    for (size_t e = 0; e < n; ++e) x_[e] += residual_[e];
  }
  own_.assign(n, 0.0f);
  encode(iteration);
}

void Codec::between() {
  throw RuntimeError(fmt::format("{} exchanges its payload in one collective", method_name(spec_.method)));
}

void Codec::decompress(std::span<float>) {
  throw RuntimeError(fmt::format("{} payloads are pushed to a server, which decodes them", method_name(spec_.method)));
}

void Codec::keep_residual() {
  if (residual_.empty()) return;
  for (size_t e = 0; e < residual_.size(); ++e) residual_[e] = x_[e] - own_[e];
}

void Codec::decode(std::span<float>) const {
  throw RuntimeError(fmt::format("{} payloads are not decoded one push at a time", method_name(spec_.method)));
}

std::vector<float> Codec::summed_own(const GroupSum& sum) const {
  std::vector<float> total = own_;
  sum(std::span<float>(total));
  return total;
}

Codec::Expected Codec::expected(const GroupSum& sum) const { return Expected{summed_own(sum), 0.0f}; }

}  // namespace dtsim::real
