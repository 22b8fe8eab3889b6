// The proxy model of a convergence-aware run: softmax regression or a two-layer MLP (ReLU), its
// parameters one flat vector made of named tensors (weight matrices column-major, then biases).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/scenario/convergence.hpp"

namespace dtsim::learn {

// A tensor of the flat parameter vector: rows x cols elements from `offset` (cols = 1: a vector).
struct TensorSlot {
  std::string name;
  Eigen::Index offset = 0;
  Eigen::Index rows = 0;
  Eigen::Index cols = 1;
  Eigen::Index size() const { return rows * cols; }
};

struct Evaluation {
  double loss = 0;      // mean cross-entropy
  double accuracy = 0;  // fraction of samples whose most likely class is their label
};

class Proxy {
 public:
  Proxy(ProxyModel kind, int features, int hidden, int classes);

  Eigen::Index size() const { return size_; }
  const std::vector<TensorSlot>& tensors() const { return tensors_; }
  // Softmax: zeros. MLP: He-scaled Gaussian weights drawn from the seed, zero biases.
  Eigen::VectorXd initial(uint64_t seed) const;
  // Mean cross-entropy of the batch (columns of x) and its gradient with respect to theta.
  double loss_and_gradient(const Eigen::VectorXd& theta, const Eigen::MatrixXd& x, const std::vector<int>& y,
                           Eigen::VectorXd& gradient) const;
  Evaluation evaluate(const Eigen::VectorXd& theta, const Eigen::MatrixXd& x, const std::vector<int>& y) const;

 private:
  // Logits of the batch; for the MLP also the hidden pre-activations.
  Eigen::MatrixXd logits(const Eigen::VectorXd& theta, const Eigen::MatrixXd& x, Eigen::MatrixXd* hidden_pre) const;

  ProxyModel kind_;
  int features_, hidden_, classes_;
  std::vector<TensorSlot> tensors_;
  Eigen::Index size_ = 0;
};

}  // namespace dtsim::learn
