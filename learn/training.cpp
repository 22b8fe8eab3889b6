// Minibatches, pieces, evaluations and the time to the target loss.
#include "learn/training.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace dtsim::learn {

Training::Training(const ConvergenceSpec& spec, const CompressionSpec& compression, const Split& data, int workers,
                   uint64_t seed)
    : spec_(spec),
      compression_(compression),
      data_(data),
      proxy_(spec.model, data.train.features(), spec.hidden, data.train.classes),
      workers_(workers),
      seed_(seed),
      order_(static_cast<size_t>(workers)),
      cursor_(static_cast<size_t>(workers), 0),
      epoch_(static_cast<size_t>(workers), 0) {
  result_.target_loss = spec.target_loss;
  // Worker w's shard: the w-th contiguous part of the (already shuffled) training set.
  const int n = data.train.samples();
  for (int w = 0; w < workers; ++w) {
    const int lo = static_cast<int>(static_cast<long>(n) * w / workers);
    const int hi = std::max(lo + 1, static_cast<int>(static_cast<long>(n) * (w + 1) / workers));
    for (int i = lo; i < hi; ++i) order_[static_cast<size_t>(w)].push_back(i % n);
  }
  evaluate(0.0, initial());
}

Eigen::VectorXd Training::gradient(int w, const Eigen::VectorXd& theta) {
  auto& order = order_[static_cast<size_t>(w)];
  auto& cursor = cursor_[static_cast<size_t>(w)];
  Eigen::MatrixXd x(data_.train.features(), spec_.batch);
  std::vector<int> y(static_cast<size_t>(spec_.batch));
  for (int b = 0; b < spec_.batch; ++b) {
    if (cursor == 0) {
      std::mt19937_64 rng(
          mix_seed(seed_, 5, static_cast<uint64_t>(w), static_cast<uint64_t>(epoch_[static_cast<size_t>(w)]++)));
      std::shuffle(order.begin(), order.end(), rng);
    }
    const int s = order[cursor];
    cursor = (cursor + 1) % order.size();
    x.col(b) = data_.train.x.col(s);
    y[static_cast<size_t>(b)] = data_.train.y[static_cast<size_t>(s)];
  }
  Eigen::VectorXd g;
  proxy_.loss_and_gradient(theta, x, y, g);
  ++result_.gradients;
  return g;
}

std::vector<Piece> Training::pieces(Eigen::Index lo, Eigen::Index hi, int stream) const {
  std::vector<Piece> out;
  for (const TensorSlot& t : proxy_.tensors()) {
    const Eigen::Index a = std::max(lo, t.offset), b = std::min(hi, t.offset + t.size());
    if (a >= b) continue;
    Piece p;
    p.offset = a;
    const bool whole = a == t.offset && b == t.offset + t.size();
    p.rows = whole ? t.rows : b - a;
    p.cols = whole ? t.cols : 1;
    p.codec = make_codec(compression_, p.rows, p.cols, workers_,
                         mix_seed(seed_, 7, static_cast<uint64_t>(stream), static_cast<uint64_t>(out.size())));
    out.push_back(std::move(p));
  }
  return out;
}

void Training::evaluate(double time, const Eigen::VectorXd& model) {
  const Evaluation e = proxy_.evaluate(model, data_.holdout.x, data_.holdout.y);
  result_.curve.push_back(CurvePoint{result_.updates, time, e.loss, e.accuracy});
  if (!result_.time_to_target_s && e.loss <= spec_.target_loss) {
    result_.time_to_target_s = time;
    result_.updates_to_target = result_.updates;
  }
}

void Training::updated(double time, const Eigen::VectorXd& model) {
  ++result_.updates;
  if (result_.updates % spec_.eval_every == 0) evaluate(time, model);
}

ConvergenceResult Training::finish(double time, const Eigen::VectorXd& model) {
  if (result_.curve.back().updates != result_.updates) evaluate(time, model);
  if (!staleness_.empty()) {
    result_.mean_staleness =
        std::accumulate(staleness_.begin(), staleness_.end(), 0.0) / static_cast<double>(staleness_.size());
    result_.max_staleness = *std::max_element(staleness_.begin(), staleness_.end());
  }
  if (!consensus_.empty()) {
    result_.mean_consensus =
        std::accumulate(consensus_.begin(), consensus_.end(), 0.0) / static_cast<double>(consensus_.size());
    result_.max_consensus = *std::max_element(consensus_.begin(), consensus_.end());
    result_.final_consensus = consensus_.back();
  }
  return result_;
}

std::vector<std::pair<Eigen::Index, Eigen::Index>> shard_ranges(Eigen::Index n, int shards) {
  std::vector<std::pair<Eigen::Index, Eigen::Index>> out;
  for (int j = 0; j < shards; ++j) out.emplace_back(n * j / shards, n * (j + 1) / shards);
  return out;
}

}  // namespace dtsim::learn
