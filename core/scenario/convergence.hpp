// Convergence-aware runs (run.convergence.*): the small proxy model, its data set and training
// settings that a Learner (learn/) carries through the simulated schedule. Plain data: core/
// only describes the run; learn/ trains.
#pragma once

#include <string>

namespace dtsim {

enum class ProxyModel { Softmax, Mlp };
enum class ProxyDataset { Synthetic, Csv, Mnist };

struct ConvergenceSpec {
  bool enabled = false;
  ProxyModel model = ProxyModel::Softmax;
  int hidden = 32;  // mlp: hidden units
  ProxyDataset dataset = ProxyDataset::Synthetic;
  int classes = 10;          // synthetic
  int features = 32;         // synthetic
  int samples = 4096;        // synthetic
  double separation = 0.5;   // synthetic: distance scale between class means
  std::string file;          // csv: the file; mnist: the images IDX file (resolved against the scenario)
  std::string labels;        // mnist: the labels IDX file
  int batch = 32;            // samples per worker per iteration (its minibatch)
  double lr = 0.1;           // SGD learning rate on the averaged (or applied) gradient
  double target_loss = 0.6;  // evaluation loss to reach; time and updates to it are reported
  int eval_every = 10;       // evaluate every this many model updates (and at the end)
  double holdout = 0.2;      // fraction of the samples kept out of training for evaluation
};

// Parameters of the proxy model on `features` inputs and `classes` outputs.
inline double proxy_parameters(const ConvergenceSpec& c, double features, double classes) {
  return c.model == ProxyModel::Mlp ? c.hidden * (features + 1) + classes * (c.hidden + 1.0) : classes * (features + 1);
}

// Bytes of the proxy's models: per worker up to six vectors of its parameters (theta, gradient, codec state, ...),
// as measured with the rest of the proxy's memory (sim/footprint.cpp).
inline double proxy_model_bytes(const ConvergenceSpec& c, double features, double classes, double workers) {
  return 8 * 6 * workers * proxy_parameters(c, features, classes);
}

}  // namespace dtsim
