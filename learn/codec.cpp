// The numeric compressors: casts, int8, QSGD, top-k, random-k, sign (majority vote) and PowerSGD.
#include "learn/codec.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include <Eigen/Core>

#include "core/base/error.hpp"
#include "learn/dataset.hpp"

namespace dtsim::learn {
namespace {

using Eigen::VectorXd;

class Identity final : public PieceCodec {
 public:
  VectorXd encode(int, const VectorXd& g, long) override { return g; }
};

// A compressor whose decoded output depends on the input only; error feedback keeps the residual.
class WithFeedback : public PieceCodec {
 public:
  WithFeedback(const CompressionSpec& spec, Eigen::Index n, int workers, uint64_t seed)
      : spec_(spec), seed_(seed), residual_(static_cast<size_t>(workers), VectorXd::Zero(n)) {}
  VectorXd encode(int w, const VectorXd& g, long round) override {
    if (!spec_.error_feedback) return decode(w, g, round);
    VectorXd& e = residual_[static_cast<size_t>(w)];
    const VectorXd p = g + e;
    VectorXd d = decode(w, p, round);
    e = p - d;
    return d;
  }

 protected:
  virtual VectorXd decode(int w, const VectorXd& p, long round) const = 0;
  std::mt19937_64 rng(int w, long round) const { return std::mt19937_64(mix_seed(seed_, 11, w, round)); }
  const CompressionSpec spec_;

 private:
  uint64_t seed_;
  std::vector<VectorXd> residual_;
};

class Cast final : public PieceCodec {
 public:
  explicit Cast(bool bf16) : bf16_(bf16) {}
  VectorXd encode(int, const VectorXd& g, long) override {
    VectorXd d(g.size());
    for (Eigen::Index i = 0; i < g.size(); ++i) {
      const float f = static_cast<float>(g[i]);
      d[i] = bf16_ ? static_cast<double>(static_cast<float>(Eigen::bfloat16(f)))
                   : static_cast<double>(static_cast<float>(Eigen::half(f)));
    }
    return d;
  }

 private:
  bool bf16_;
};

class Int8 final : public WithFeedback {
 public:
  using WithFeedback::WithFeedback;
  VectorXd decode(int, const VectorXd& p, long) const override {
    const double scale = p.cwiseAbs().maxCoeff() / 127.0;
    if (scale == 0) return VectorXd::Zero(p.size());
    return ((p / scale).array().round().cwiseMax(-127.0).cwiseMin(127.0) * scale).matrix();
  }
};

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

Eigen::Index sparse_k(const CompressionSpec& spec, Eigen::Index n) {
  return std::clamp<Eigen::Index>(static_cast<Eigen::Index>(std::ceil(spec.ratio * static_cast<double>(n))), 1, n);
}

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

// signSGD with error feedback: the signs and one scale, mean |p| (so the decoded tensor keeps the
// l1 norm); receivers take the majority vote of the signs times the mean scale.
class Sign final : public WithFeedback {
 public:
  using WithFeedback::WithFeedback;
  VectorXd decode(int, const VectorXd& p, long) const override {
    const double scale = p.cwiseAbs().mean();
    return p.unaryExpr([scale](double v) { return v > 0 ? scale : (v < 0 ? -scale : 0.0); });
  }
  VectorXd combine(const std::vector<VectorXd>& decoded) const override {
    VectorXd votes = VectorXd::Zero(decoded.front().size());
    double scale = 0;
    for (const VectorXd& d : decoded) {
      votes += d.unaryExpr([](double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); });
      scale += d.cwiseAbs().maxCoeff();
    }
    scale /= static_cast<double>(decoded.size());
    return votes.unaryExpr([scale](double v) { return v > 0 ? scale : (v < 0 ? -scale : 0.0); });
  }
};

// PowerSGD (Vogels et al. 2019) on the tensor's own rows x cols shape: P = M Q, AllReduce P,
// orthogonalise, Q = M^T P, AllReduce Q, M ~ P Q^T; Q warm-starts the next round.
class PowerSgd final : public PieceCodec {
 public:
  PowerSgd(const CompressionSpec& spec, Eigen::Index rows, Eigen::Index cols, int workers, uint64_t seed)
      : spec_(spec), rows_(rows), cols_(cols), residual_(static_cast<size_t>(workers), VectorXd::Zero(rows * cols)) {
    const Eigen::Index r = std::min<Eigen::Index>(spec.rank, std::min(rows, cols));
    std::mt19937_64 gen(mix_seed(seed, 13));
    std::normal_distribution<double> normal(0.0, 1.0);
    q_.resize(cols, r);
    for (Eigen::Index i = 0; i < q_.size(); ++i) q_.data()[i] = normal(gen);
  }
  using PieceCodec::all_reduce;
  // A parameter server cannot combine factors (the scenario check refuses it).
  VectorXd encode(int, const VectorXd&, long) override { throw RuntimeError("powersgd needs an AllReduce"); }
  VectorXd all_reduce(const std::vector<int>& senders, const std::vector<VectorXd>& inputs, long) override {
    using Mat = Eigen::MatrixXd;
    std::vector<VectorXd> m(inputs.size());
    for (size_t w = 0; w < inputs.size(); ++w)
      m[w] = spec_.error_feedback ? VectorXd(inputs[w] + residual_[static_cast<size_t>(senders[w])]) : inputs[w];
    auto as_mat = [this](const VectorXd& v) { return Eigen::Map<const Mat>(v.data(), rows_, cols_); };
    Mat p = Mat::Zero(rows_, q_.cols());
    for (const VectorXd& v : m) p += as_mat(v) * q_;
    p /= static_cast<double>(m.size());
    orthogonalise(p);
    Mat q = Mat::Zero(cols_, q_.cols());
    for (const VectorXd& v : m) q += as_mat(v).transpose() * p;
    q /= static_cast<double>(m.size());
    q_ = q;
    const Mat approx = p * q.transpose();
    const VectorXd out = Eigen::Map<const VectorXd>(approx.data(), approx.size());
    for (size_t w = 0; w < m.size(); ++w) {
      if (spec_.error_feedback) residual_[static_cast<size_t>(senders[w])] = m[w] - out;
    }
    return out;
  }

 private:
  static void orthogonalise(Eigen::MatrixXd& p) {  // Gram-Schmidt on the columns
    for (Eigen::Index c = 0; c < p.cols(); ++c) {
      for (Eigen::Index j = 0; j < c; ++j) p.col(c) -= p.col(j).dot(p.col(c)) * p.col(j);
      const double norm = p.col(c).norm();
      if (norm > 1e-12) p.col(c) /= norm;
    }
  }
  const CompressionSpec spec_;
  Eigen::Index rows_, cols_;
  std::vector<VectorXd> residual_;
  Eigen::MatrixXd q_;
};

}  // namespace

VectorXd mean_of(const std::vector<VectorXd>& v) {
  VectorXd sum = v.front();
  for (size_t i = 1; i < v.size(); ++i) sum += v[i];
  return sum / static_cast<double>(v.size());
}

VectorXd PieceCodec::combine(const std::vector<VectorXd>& decoded) const { return mean_of(decoded); }

VectorXd PieceCodec::all_reduce(const std::vector<VectorXd>& inputs, long round) {
  std::vector<int> senders(inputs.size());
  for (size_t w = 0; w < inputs.size(); ++w) senders[w] = static_cast<int>(w);
  return all_reduce(senders, inputs, round);
}

VectorXd PieceCodec::all_reduce(const std::vector<int>& senders, const std::vector<VectorXd>& inputs, long round) {
  std::vector<VectorXd> decoded;
  decoded.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) decoded.push_back(encode(senders[i], inputs[i], round));
  return combine(decoded);
}

std::unique_ptr<PieceCodec> make_codec(const CompressionSpec& spec, Eigen::Index rows, Eigen::Index cols, int workers,
                                       uint64_t seed) {
  const Eigen::Index n = rows * cols;
  switch (spec.method) {
    case CompressionMethod::None: break;
    case CompressionMethod::Fp16: return std::make_unique<Cast>(false);
    case CompressionMethod::Bf16: return std::make_unique<Cast>(true);
    case CompressionMethod::Int8: return std::make_unique<Int8>(spec, n, workers, seed);
    case CompressionMethod::Qsgd: return std::make_unique<Qsgd>(spec, n, workers, seed);
    case CompressionMethod::TopK: return std::make_unique<TopK>(spec, n, workers, seed);
    case CompressionMethod::RandomK: return std::make_unique<RandomK>(spec, n, workers, seed);
    case CompressionMethod::Sign: return std::make_unique<Sign>(spec, n, workers, seed);
    case CompressionMethod::PowerSgd: {
      const Eigen::Index r = std::min<Eigen::Index>(spec.rank, std::min(rows, cols));
      if (cols > 1 && rows > 1 && (rows + cols) * r < n) {
        return std::make_unique<PowerSgd>(spec, rows, cols, workers, seed);
      }
      break;
    }
  }
  return std::make_unique<Identity>();
}

}  // namespace dtsim::learn
