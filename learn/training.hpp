// What every synchronisation rule of the Learner shares: the proxy model, each worker's shard of
// the training data and its minibatches, the pieces gradients are compressed in, and the curve of
// evaluations against updates and simulated time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/scenario/convergence.hpp"
#include "learn/codec.hpp"
#include "learn/dataset.hpp"
#include "learn/proxy.hpp"

namespace dtsim::learn {

struct CurvePoint {
  long updates = 0;
  double time_s = 0;  // simulated time of the update evaluated
  double loss = 0;    // held-out cross-entropy
  double accuracy = 0;
};

struct ConvergenceResult {
  std::string job;
  std::string policy;  // "allreduce bsp", "parameter_server ssp(3)", ...
  std::vector<CurvePoint> curve;
  double target_loss = 0;
  std::optional<double> time_to_target_s;
  std::optional<long> updates_to_target;
  long updates = 0;
  long gradients = 0;         // gradients computed by all workers
  double mean_staleness = 0;  // updates applied to a shard between the read of the parameters and the apply
  double max_staleness = 0;
  std::optional<long> kept_gradients;  // backup workers: gradients the quorums kept (averaged into updates)
  // Gossip: mean squared distance of the workers' models from their mean, after each update.
  std::optional<double> mean_consensus, max_consensus, final_consensus;
};

// A piece of the flat parameter vector compressed as one: a tensor, or its part in a shard.
struct Piece {
  Eigen::Index offset = 0;
  Eigen::Index rows = 0;
  Eigen::Index cols = 1;
  std::unique_ptr<PieceCodec> codec;
};

class Training {
 public:
  Training(const ConvergenceSpec& spec, const CompressionSpec& compression, const Split& data, int workers,
           uint64_t seed);

  const Proxy& proxy() const { return proxy_; }
  double lr() const { return spec_.lr; }
  Eigen::Index size() const { return proxy_.size(); }
  Eigen::VectorXd initial() const { return proxy_.initial(seed_); }
  // Worker w's gradient at theta on its next minibatch (its shard, reshuffled every epoch).
  Eigen::VectorXd gradient(int w, const Eigen::VectorXd& theta);
  // The pieces of [lo, hi): each tensor's part in it, with its codec (`stream` tells codecs apart).
  std::vector<Piece> pieces(Eigen::Index lo, Eigen::Index hi, int stream) const;
  // One more update of the model (evaluated every eval_every updates).
  void updated(double time, const Eigen::VectorXd& model);
  void staleness(double s) { staleness_.push_back(s); }
  // Backup workers: an update averaged n kept gradients.
  void kept(long n) { result_.kept_gradients = result_.kept_gradients.value_or(0) + n; }
  // Gossip: the workers' consensus distance after an update.
  void consensus(double d) { consensus_.push_back(d); }
  ConvergenceResult finish(double time, const Eigen::VectorXd& model);

 private:
  void evaluate(double time, const Eigen::VectorXd& model);

  ConvergenceSpec spec_;
  CompressionSpec compression_;
  const Split& data_;
  Proxy proxy_;
  int workers_;
  uint64_t seed_;
  std::vector<std::vector<int>> order_;  // each worker's samples in this epoch's order
  std::vector<size_t> cursor_;
  std::vector<int> epoch_;
  std::vector<double> staleness_;
  std::vector<double> consensus_;
  ConvergenceResult result_;
};

// Splits of a parameter vector of n elements into `shards` equal contiguous ranges.
std::vector<std::pair<Eigen::Index, Eigen::Index>> shard_ranges(Eigen::Index n, int shards);

}  // namespace dtsim::learn
