// PowerSGD (Vogels et al., 2019): the unit reshaped to M (m x n', the squarest reshape,
// zero-padded), P = M Q AllReduced, orthogonalised (Gram-Schmidt), Q = M^T P AllReduced, and the
// combined gradient M ~ P Q^T (the sum over workers); the summed Q kept as the next warm start.
// The first Q is drawn from the seed, the same on every worker.
#include <algorithm>
#include <cmath>
#include <random>

#include <Eigen/Dense>

#include "real/codecs/detail.hpp"

namespace dtsim::real::codecs {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class PowerSgd final : public Codec {
 public:
  explicit PowerSgd(const CodecArgs& a) : Codec(a.spec, a.n, a.workers, a.me, a.seed, 0, a.spec.error_feedback) {
    m_ = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(a.n)))));
    cols_ = std::max(1, static_cast<int>((a.n + m_ - 1) / m_));
    r_ = std::min(a.spec.rank, std::min(m_, cols_));
    wire_.assign(static_cast<size_t>(m_) * r_, 0.0f);
    wire2_.assign(static_cast<size_t>(cols_) * r_, 0.0f);
    std::mt19937_64 gen(a.seed);
    std::normal_distribution<float> normal;
    q_.resize(wire2_.size());
    for (float& v : q_) v = normal(gen);
  }
  int rows() const override { return m_; }
  int cols() const override { return cols_; }
  int rank() const override { return r_; }
  std::span<const float> q() const override { return q_; }

  void between() override {
    Eigen::Map<Eigen::MatrixXf> p(wire_.data(), m_, r_);
    for (int j = 0; j < r_; ++j) {  // Gram-Schmidt on the summed P
      for (int i = 0; i < j; ++i) p.col(j) -= p.col(i).dot(p.col(j)) * p.col(i);
      const float norm = p.col(j).norm();
      if (norm > 0) p.col(j) /= norm;
    }
    const Eigen::Map<const RowMatrix> m(x_.data(), m_, cols_);
    Eigen::Map<Eigen::MatrixXf>(wire2_.data(), cols_, r_).noalias() = m.transpose() * p;
  }
  // Error feedback keeps x minus this worker's share of the approximation.
  void decompress(std::span<float> out) override {
    const auto n = static_cast<size_t>(n_);
    const Eigen::Map<const Eigen::MatrixXf> p(wire_.data(), m_, r_);
    const Eigen::Map<const Eigen::MatrixXf> q(wire2_.data(), cols_, r_);
    const RowMatrix d = p * q.transpose();
    for (size_t e = 0; e < n; ++e) out[e] = d.data()[e];
    q_ = wire2_;  // warm start
    if (!residual_.empty()) {
      for (size_t e = 0; e < n; ++e) residual_[e] = x_[e] - out[e] / static_cast<float>(workers_);
    }
  }
  // P P^T (the workers' M summed), with P from wire(0), within 1e-3 of its largest element (float
  // rounding).
  Expected expected(const GroupSum& sum) const override {
    std::vector<float> total = summed_own(sum);
    total.resize(static_cast<size_t>(m_) * static_cast<size_t>(cols_), 0.0f);
    const Eigen::Map<const RowMatrix> m(total.data(), m_, cols_);
    const Eigen::Map<const Eigen::MatrixXf> p(wire_.data(), m_, r_);
    const RowMatrix want = p * (p.transpose() * m);
    Expected out{std::vector<float>(want.data(), want.data() + n_), 0.0f};
    out.tolerance = 1e-3f * std::max(1.0f, want.cwiseAbs().maxCoeff());
    return out;
  }

 private:
  void encode(int) override {
    x_.resize(static_cast<size_t>(m_) * cols_, 0.0f);  // M, row-major, zero-padded
    const Eigen::Map<const RowMatrix> m(x_.data(), m_, cols_);
    const Eigen::Map<const Eigen::MatrixXf> q(q_.data(), cols_, r_);
    Eigen::Map<Eigen::MatrixXf>(wire_.data(), m_, r_).noalias() = m * q;
    own_.assign(x_.begin(), x_.begin() + static_cast<std::ptrdiff_t>(n_));
  }
  int m_ = 0, cols_ = 0, r_ = 0;
  std::vector<float> q_;
};

}  // namespace

std::unique_ptr<Codec> powersgd(const CodecArgs& a) { return std::make_unique<PowerSgd>(a); }

}  // namespace dtsim::real::codecs
