// The compressors of models/compression/ carried out on real floats (see codec.hpp).
#include "real/codec.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include <fmt/format.h>
#include <Eigen/Dense>

#include "core/base/error.hpp"

namespace dtsim::real {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Two 16-bit values in one float slot (low half first).
void put16(std::vector<float>& wire, std::int64_t i, std::uint16_t v) {
  std::uint32_t slot = std::bit_cast<std::uint32_t>(wire[static_cast<size_t>(i / 2)]);
  const int shift = (i % 2) * 16;
  slot = (slot & ~(0xffffu << shift)) | (static_cast<std::uint32_t>(v) << shift);
  wire[static_cast<size_t>(i / 2)] = std::bit_cast<float>(slot);
}

std::uint16_t get16(const float* wire, std::int64_t i) {
  const std::uint32_t slot = std::bit_cast<std::uint32_t>(wire[i / 2]);
  return static_cast<std::uint16_t>(slot >> ((i % 2) * 16));
}

float index_bits(std::int64_t i) { return std::bit_cast<float>(static_cast<std::uint32_t>(i)); }
std::int64_t index_of(float f) { return std::bit_cast<std::uint32_t>(f); }

}  // namespace

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
    const std::uint16_t sum = half ? to_half(a + b) : to_bfloat16(a + b);
    std::uint32_t slot = std::bit_cast<std::uint32_t>(into[i / 2]);
    const int shift = (i % 2) * 16;
    slot = (slot & ~(0xffffu << shift)) | (static_cast<std::uint32_t>(sum) << shift);
    into[i / 2] = std::bit_cast<float>(slot);
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

Codec::Codec(const CompressionSpec& spec, std::int64_t n, int workers, int me, std::uint64_t seed)
    : spec_(spec),
      method_(spec.method),
      exchange_(method_traits(spec.method).exchange),
      n_(n),
      workers_(workers),
      me_(me),
      seed_(seed) {
  bool feedback = spec.error_feedback;
  switch (method_) {
    case CompressionMethod::None: throw RuntimeError("no codec for compression method none");
    case CompressionMethod::Fp16:
    case CompressionMethod::Bf16:
      feedback = false;  // a cast: see reduction_of
      wire_.assign(static_cast<size_t>((n + 1) / 2), 0.0f);
      break;
    case CompressionMethod::TopK:
    case CompressionMethod::RandomK:
      k_ = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(spec.ratio * static_cast<double>(n))), 1,
                                    std::max<std::int64_t>(1, n));
      slot_ = 2 * k_;
      break;
    case CompressionMethod::Sign: slot_ = 1 + (n + 31) / 32; break;  // the scale, then the bits in 32-bit words
    case CompressionMethod::Int8: slot_ = 1 + (n + 3) / 4; break;    // the scale, then one byte per element
    case CompressionMethod::Qsgd:
      bits_ = static_cast<int>(std::ceil(std::log2(spec.levels + 1.0))) + 1;
      slot_ = 1 + (n * bits_ + 31) / 32;  // the norm, then sign and magnitude bits
      break;
    case CompressionMethod::PowerSgd: {
      m_ = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n)))));
      cols_ = std::max(1, static_cast<int>((n + m_ - 1) / m_));
      r_ = std::min(spec.rank, std::min(m_, cols_));
      wire_.assign(static_cast<size_t>(m_) * r_, 0.0f);
      wire2_.assign(static_cast<size_t>(cols_) * r_, 0.0f);
      std::mt19937_64 gen(seed);  // the same first Q on every worker
      std::normal_distribution<float> normal;
      q_.resize(wire2_.size());
      for (float& v : q_) v = normal(gen);
      break;
    }
  }
  if (feedback) residual_.assign(static_cast<size_t>(n), 0.0f);
  if (slot_ > 0) wire_.assign(static_cast<size_t>(slot_ * workers), 0.0f);
}

Reduction reduction_of(CompressionMethod m) {
  switch (m) {
    case CompressionMethod::Fp16: return Reduction::Half;
    case CompressionMethod::Bf16: return Reduction::Bfloat16;
    case CompressionMethod::None:
    case CompressionMethod::Int8:
    case CompressionMethod::Qsgd:
    case CompressionMethod::TopK:
    case CompressionMethod::RandomK:
    case CompressionMethod::Sign:
    case CompressionMethod::PowerSgd: break;
  }
  return Reduction::Float;
}

void Codec::compress(std::span<const float> grad, int iteration) {
  const auto n = static_cast<size_t>(n_);
  x_.assign(grad.begin(), grad.end());
  if (!residual_.empty()) {
    for (size_t e = 0; e < n; ++e) x_[e] += residual_[e];
  }
  own_.assign(n, 0.0f);
  switch (method_) {
    case CompressionMethod::None: break;
    case CompressionMethod::Fp16: compress_cast(true); break;
    case CompressionMethod::Bf16: compress_cast(false); break;
    case CompressionMethod::TopK:
    case CompressionMethod::RandomK: compress_sparse(iteration); break;
    case CompressionMethod::Sign: compress_sign(); break;
    case CompressionMethod::Int8: compress_int8(); break;
    case CompressionMethod::Qsgd: compress_qsgd(iteration); break;
    case CompressionMethod::PowerSgd: compress_powersgd(); break;
  }
}

void Codec::compress_cast(bool half) {
  for (size_t e = 0; e < static_cast<size_t>(n_); ++e) {
    const std::uint16_t h = half ? to_half(x_[e]) : to_bfloat16(x_[e]);
    put16(wire_, static_cast<std::int64_t>(e), h);
    own_[e] = half ? from_half(h) : from_bfloat16(h);
  }
}

void Codec::compress_sparse(int iteration) {
  const auto n = static_cast<size_t>(n_);
  std::vector<std::int64_t> chosen;
  if (method_ == CompressionMethod::TopK) {  // largest |x|, ties to the lower index
    std::vector<std::int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    auto larger = [&](std::int64_t a, std::int64_t b) {
      const float fa = std::fabs(x_[static_cast<size_t>(a)]), fb = std::fabs(x_[static_cast<size_t>(b)]);
      return fa != fb ? fa > fb : a < b;
    };
    std::nth_element(order.begin(), order.begin() + (k_ - 1), order.end(), larger);
    chosen.assign(order.begin(), order.begin() + k_);
    std::sort(chosen.begin(), chosen.end());
  } else {
    chosen = randomk_draw(seed_, me_, iteration, n_, k_);
  }
  float* mine = wire_.data() + slot_ * me_;
  for (size_t j = 0; j < chosen.size(); ++j) {
    const auto e = static_cast<size_t>(chosen[j]);
    mine[2 * j] = index_bits(chosen[j]);
    mine[2 * j + 1] = x_[e];
    own_[e] = x_[e];
  }
}

void Codec::compress_sign() {
  const auto n = static_cast<size_t>(n_);
  float* mine = wire_.data() + slot_ * me_;
  double total = 0;
  for (size_t e = 0; e < n; ++e) total += std::fabs(x_[e]);
  const auto scale = static_cast<float>(total / static_cast<double>(std::max<std::int64_t>(1, n_)));
  mine[0] = scale;
  std::vector<std::uint32_t> words(static_cast<size_t>(slot_ - 1), 0u);
  for (size_t e = 0; e < n; ++e) {
    if (x_[e] >= 0) words[e / 32] |= 1u << (e % 32);
    own_[e] = x_[e] >= 0 ? scale : -scale;
  }
  for (size_t w = 0; w < words.size(); ++w) mine[1 + w] = std::bit_cast<float>(words[w]);
}

void Codec::compress_int8() {
  const auto n = static_cast<size_t>(n_);
  float* mine = wire_.data() + slot_ * me_;
  float max_abs = 0;
  for (size_t e = 0; e < n; ++e) max_abs = std::max(max_abs, std::fabs(x_[e]));
  const float scale = max_abs / 127.0f;
  mine[0] = scale;
  auto* bytes = reinterpret_cast<std::int8_t*>(mine + 1);
  for (size_t e = 0; e < n; ++e) {
    const auto q = static_cast<std::int8_t>(scale > 0 ? std::clamp(std::lround(x_[e] / scale), -127L, 127L) : 0);
    bytes[e] = q;
    own_[e] = static_cast<float>(q) * scale;
  }
}

void Codec::compress_qsgd(int iteration) {
  const auto n = static_cast<size_t>(n_);
  float* mine = wire_.data() + slot_ * me_;
  double sum2 = 0;
  for (size_t e = 0; e < n; ++e) sum2 += static_cast<double>(x_[e]) * x_[e];
  const auto norm = static_cast<float>(std::sqrt(sum2));
  mine[0] = norm;
  std::fill(mine + 1, mine + slot_, 0.0f);
  auto* words = reinterpret_cast<std::uint32_t*>(mine + 1);
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

void Codec::compress_powersgd() {
  x_.resize(static_cast<size_t>(m_) * cols_, 0.0f);  // M, row-major, zero-padded
  const Eigen::Map<const RowMatrix> m(x_.data(), m_, cols_);
  const Eigen::Map<const Eigen::MatrixXf> q(q_.data(), cols_, r_);
  Eigen::Map<Eigen::MatrixXf>(wire_.data(), m_, r_).noalias() = m * q;
  own_.assign(x_.begin(), x_.begin() + static_cast<std::ptrdiff_t>(n_));
}

void Codec::between() {
  Eigen::Map<Eigen::MatrixXf> p(wire_.data(), m_, r_);
  for (int j = 0; j < r_; ++j) {  // Gram-Schmidt on the summed P
    for (int i = 0; i < j; ++i) p.col(j) -= p.col(i).dot(p.col(j)) * p.col(i);
    const float norm = p.col(j).norm();
    if (norm > 0) p.col(j) /= norm;
  }
  const Eigen::Map<const RowMatrix> m(x_.data(), m_, cols_);
  Eigen::Map<Eigen::MatrixXf>(wire2_.data(), cols_, r_).noalias() = m.transpose() * p;
}

void Codec::keep_residual() {
  if (residual_.empty()) return;
  for (size_t e = 0; e < residual_.size(); ++e) residual_[e] = x_[e] - own_[e];
}

bool Codec::lossless() const {
  switch (method_) {
    case CompressionMethod::Fp16:
    case CompressionMethod::Bf16: return true;
    case CompressionMethod::TopK:
    case CompressionMethod::RandomK: return k_ == n_;
    case CompressionMethod::None:
    case CompressionMethod::Int8:
    case CompressionMethod::Qsgd:
    case CompressionMethod::Sign:
    case CompressionMethod::PowerSgd: break;
  }
  return false;
}

void Codec::decode(std::span<float> out) const {
  const auto n = static_cast<size_t>(n_);
  switch (method_) {
    case CompressionMethod::Fp16:
    case CompressionMethod::Bf16: {
      const bool half = method_ == CompressionMethod::Fp16;
      for (size_t e = 0; e < n; ++e) {
        const std::uint16_t h = get16(wire_.data(), static_cast<std::int64_t>(e));
        out[e] = half ? from_half(h) : from_bfloat16(h);
      }
      return;
    }
    case CompressionMethod::TopK:
    case CompressionMethod::RandomK:
      std::fill(out.begin(), out.end(), 0.0f);
      for (std::int64_t j = 0; j < k_; ++j) out[static_cast<size_t>(index_of(wire_[2 * j]))] += wire_[2 * j + 1];
      return;
    case CompressionMethod::Sign:
      for (size_t e = 0; e < n; ++e) {
        const std::uint32_t word = std::bit_cast<std::uint32_t>(wire_[1 + e / 32]);
        out[e] = (word >> (e % 32)) & 1u ? wire_[0] : -wire_[0];
      }
      return;
    case CompressionMethod::Int8: {
      const auto* bytes = reinterpret_cast<const std::int8_t*>(wire_.data() + 1);
      for (size_t e = 0; e < n; ++e) out[e] = static_cast<float>(bytes[e]) * wire_[0];
      return;
    }
    case CompressionMethod::Qsgd: {
      const auto* words = reinterpret_cast<const std::uint32_t*>(wire_.data() + 1);
      for (size_t e = 0; e < n; ++e) {
        std::uint32_t code = 0;
        for (int b = 0; b < bits_; ++b) {
          const std::uint64_t at = e * static_cast<std::uint64_t>(bits_) + static_cast<std::uint64_t>(b);
          code |= ((words[at / 32] >> (at % 32)) & 1u) << b;
        }
        out[e] =
            ((code & 1u) ? -1.0f : 1.0f) * static_cast<float>(code >> 1) * wire_[0] / static_cast<float>(spec_.levels);
      }
      return;
    }
    case CompressionMethod::None:
    case CompressionMethod::PowerSgd: break;
  }
  throw RuntimeError(fmt::format("{} payloads are not decoded one push at a time", method_name(method_)));
}

// Error feedback keeps x minus this worker's decoded contribution: own_, or for PowerSGD its share
// of the approximation.
void Codec::decompress(std::span<float> out) {
  const auto n = static_cast<size_t>(n_);
  switch (method_) {
    case CompressionMethod::Fp16:
    case CompressionMethod::Bf16: decode(out); return;  // no error feedback for casts (as DDP's hooks)
    case CompressionMethod::TopK:
    case CompressionMethod::RandomK:
      std::fill(out.begin(), out.end(), 0.0f);
      for (int w = 0; w < workers_; ++w) {
        const float* s = wire_.data() + slot_ * w;
        for (std::int64_t j = 0; j < k_; ++j) out[static_cast<size_t>(index_of(s[2 * j]))] += s[2 * j + 1];
      }
      break;
    case CompressionMethod::Sign: {
      float scales = 0;
      for (int w = 0; w < workers_; ++w) scales += wire_[static_cast<size_t>(slot_ * w)];
      for (size_t e = 0; e < n; ++e) {
        int vote = 0;
        for (int w = 0; w < workers_; ++w) {
          const std::uint32_t word = std::bit_cast<std::uint32_t>(wire_[static_cast<size_t>(slot_ * w) + 1 + e / 32]);
          vote += (word >> (e % 32)) & 1u ? 1 : -1;
        }
        out[e] = vote > 0 ? scales : vote < 0 ? -scales : 0.0f;
      }
      break;
    }
    case CompressionMethod::PowerSgd: {
      const Eigen::Map<const Eigen::MatrixXf> p(wire_.data(), m_, r_);
      const Eigen::Map<const Eigen::MatrixXf> q(wire2_.data(), cols_, r_);
      RowMatrix d = p * q.transpose();
      for (size_t e = 0; e < n; ++e) out[e] = d.data()[e];
      q_ = wire2_;  // warm start
      if (!residual_.empty()) {
        for (size_t e = 0; e < n; ++e) residual_[e] = x_[e] - out[e] / static_cast<float>(workers_);
      }
      return;
    }
    case CompressionMethod::None:
    case CompressionMethod::Int8:
    case CompressionMethod::Qsgd: break;  // pushes only: a server decodes them (decode)
  }
  keep_residual();
}

}  // namespace dtsim::real
