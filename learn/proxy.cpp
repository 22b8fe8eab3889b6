// Forward pass, cross-entropy and backward pass of the proxy models, with Eigen.
#include "learn/proxy.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "learn/dataset.hpp"

namespace dtsim::learn {
namespace {

using Eigen::Map;
using Eigen::MatrixXd;
using Eigen::VectorXd;

Map<const MatrixXd> view(const VectorXd& theta, const TensorSlot& t) {
  return Map<const MatrixXd>(theta.data() + t.offset, t.rows, t.cols);
}
Map<MatrixXd> view(VectorXd& theta, const TensorSlot& t) {
  return Map<MatrixXd>(theta.data() + t.offset, t.rows, t.cols);
}

// Column-wise softmax probabilities, computed stably; returns the mean cross-entropy of the labels.
double softmax_cross_entropy(MatrixXd& z, const std::vector<int>& y) {
  double loss = 0;
  for (Eigen::Index s = 0; s < z.cols(); ++s) {
    const double top = z.col(s).maxCoeff();
    z.col(s).array() = (z.col(s).array() - top).exp();
    const double sum = z.col(s).sum();
    z.col(s) /= sum;
    loss -= std::log(std::max(z(y[static_cast<size_t>(s)], s), 1e-300));
  }
  return loss / static_cast<double>(z.cols());
}

}  // namespace

Proxy::Proxy(ProxyModel kind, int features, int hidden, int classes)
    : kind_(kind), features_(features), hidden_(hidden), classes_(classes) {
  auto add = [this](std::string name, Eigen::Index rows, Eigen::Index cols) {
    tensors_.push_back(TensorSlot{std::move(name), size_, rows, cols});
    size_ += rows * cols;
  };
  if (kind_ == ProxyModel::Softmax) {
    add("W", classes_, features_);
    add("b", classes_, 1);
  } else {
    add("W1", hidden_, features_);
    add("b1", hidden_, 1);
    add("W2", classes_, hidden_);
    add("b2", classes_, 1);
  }
}

VectorXd Proxy::initial(uint64_t seed) const {
  VectorXd theta = VectorXd::Zero(size_);
  if (kind_ == ProxyModel::Softmax) return theta;
  std::mt19937_64 rng(mix_seed(seed, 3));
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const TensorSlot& t : tensors_) {
    if (t.cols == 1) continue;  // biases start at zero
    const double scale = std::sqrt(2.0 / static_cast<double>(t.cols));
    for (Eigen::Index i = 0; i < t.size(); ++i) theta[t.offset + i] = scale * normal(rng);
  }
  return theta;
}

MatrixXd Proxy::logits(const VectorXd& theta, const MatrixXd& x, MatrixXd* hidden_pre) const {
  if (kind_ == ProxyModel::Softmax) {
    MatrixXd z = view(theta, tensors_[0]) * x;
    z.colwise() += view(theta, tensors_[1]).col(0);
    return z;
  }
  MatrixXd h = view(theta, tensors_[0]) * x;
  h.colwise() += view(theta, tensors_[1]).col(0);
  MatrixXd z = view(theta, tensors_[2]) * h.cwiseMax(0.0);
  z.colwise() += view(theta, tensors_[3]).col(0);
  if (hidden_pre) *hidden_pre = std::move(h);
  return z;
}

double Proxy::loss_and_gradient(const VectorXd& theta, const MatrixXd& x, const std::vector<int>& y,
                                VectorXd& gradient) const {
  MatrixXd pre;
  MatrixXd p = logits(theta, x, &pre);
  const double loss = softmax_cross_entropy(p, y);
  // dL/dz = (p - onehot(y)) / batch
  for (Eigen::Index s = 0; s < p.cols(); ++s) p(y[static_cast<size_t>(s)], s) -= 1.0;
  p /= static_cast<double>(x.cols());
  gradient.resize(size_);
  if (kind_ == ProxyModel::Softmax) {
    view(gradient, tensors_[0]).noalias() = p * x.transpose();
    view(gradient, tensors_[1]).col(0) = p.rowwise().sum();
    return loss;
  }
  const MatrixXd a = pre.cwiseMax(0.0);
  view(gradient, tensors_[2]).noalias() = p * a.transpose();
  view(gradient, tensors_[3]).col(0) = p.rowwise().sum();
  MatrixXd da = view(theta, tensors_[2]).transpose() * p;
  da.array() *= (pre.array() > 0.0).cast<double>();
  view(gradient, tensors_[0]).noalias() = da * x.transpose();
  view(gradient, tensors_[1]).col(0) = da.rowwise().sum();
  return loss;
}

Evaluation Proxy::evaluate(const VectorXd& theta, const MatrixXd& x, const std::vector<int>& y) const {
  MatrixXd p = logits(theta, x, nullptr);
  Evaluation e;
  long correct = 0;
  for (Eigen::Index s = 0; s < p.cols(); ++s) {
    Eigen::Index best = 0;
    p.col(s).maxCoeff(&best);
    if (best == y[static_cast<size_t>(s)]) ++correct;
  }
  e.loss = softmax_cross_entropy(p, y);
  e.accuracy = static_cast<double>(correct) / static_cast<double>(p.cols());
  return e;
}

}  // namespace dtsim::learn
