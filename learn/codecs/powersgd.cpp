// PowerSGD on a piece's own rows x cols shape, warm-started from the last round's Q.
#include <algorithm>

#include <Eigen/Dense>

#include "core/base/error.hpp"

#include "learn/codecs/detail.hpp"

namespace dtsim::learn::codecs {
namespace {

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

std::unique_ptr<PieceCodec> powersgd(const CompressionSpec& spec, Eigen::Index rows, Eigen::Index cols, int workers,
                                     uint64_t seed) {
  const Eigen::Index r = std::min<Eigen::Index>(spec.rank, std::min(rows, cols));
  if (cols > 1 && rows > 1 && (rows + cols) * r < rows * cols) {
    return std::make_unique<PowerSgd>(spec, rows, cols, workers, seed);
  }
  return nullptr;
}

}  // namespace dtsim::learn::codecs
