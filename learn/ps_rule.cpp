// Parameter-server jobs: a worker computes its gradient on the parameters it last pulled, pushes
// each shard compressed, the shard's server applies it (BSP: the combination of every worker's
// push of the iteration; ASP/SSP: each push alone, at once), and a pull installs the parameters the
// server sent. Staleness is whatever the simulated order makes it: the updates a shard took
// between the worker's read of it and the apply of its gradient.
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "learn/sync_rule.hpp"

namespace dtsim::learn {
namespace {

using Eigen::VectorXd;

class ParameterServerRule final : public SyncRule {
 public:
  ParameterServerRule(Training& t, int workers, int shards)
      : t_(t),
        workers_(workers),
        ranges_(shard_ranges(t.size(), shards)),
        server_(t.initial()),
        version_(static_cast<size_t>(shards), 0),
        theta_(static_cast<size_t>(workers), t.initial()),
        seen_(static_cast<size_t>(workers), std::vector<long>(static_cast<size_t>(shards), 0)) {
    for (int j = 0; j < shards; ++j) pieces_.push_back(t.pieces(ranges_[j].first, ranges_[j].second, j));
  }

  void on(const LearnEvent& e) override {
    switch (e.kind) {
      case EventKind::Gradient: {
        Gradient& g = gradients_[{e.worker, e.iteration}];
        g.value = t_.gradient(e.worker, theta_[static_cast<size_t>(e.worker)]);
        g.versions = seen_[static_cast<size_t>(e.worker)];
        return;
      }
      case EventKind::Push: return push(e);
      case EventKind::ServerRecv: {
        auto node = sent_.extract({e.worker, e.iteration, e.shard});
        if (node.empty()) fail(e, "a push that was never sent");
        inbox_[{e.shard, e.iteration, e.worker}] = std::move(node.mapped());
        return;
      }
      case EventKind::ServerUpdate: return apply(e);
      case EventKind::ServerSend: {
        const auto [lo, hi] = ranges_[static_cast<size_t>(e.shard)];
        snapshots_[{e.worker, e.iteration, e.shard}] = {server_.segment(lo, hi - lo), version_[e.shard]};
        return;
      }
      case EventKind::Pull: {
        auto node = snapshots_.extract({e.worker, e.iteration, e.shard});
        if (node.empty()) fail(e, "a pull of parameters that were never sent");
        const auto [lo, hi] = ranges_[static_cast<size_t>(e.shard)];
        theta_[static_cast<size_t>(e.worker)].segment(lo, hi - lo) = node.mapped().first;
        seen_[static_cast<size_t>(e.worker)][static_cast<size_t>(e.shard)] = node.mapped().second;
        return;
      }
      case EventKind::WorkerStep:
      case EventKind::Kept:
      case EventKind::Gossip: return;
    }
  }

  VectorXd model() const override { return server_; }

 private:
  struct Gradient {
    VectorXd value;
    std::vector<long> versions;  // each shard's version the gradient was computed on
    int pushed = 0;
  };

  [[noreturn]] static void fail(const LearnEvent& e, const char* what) {
    throw RuntimeError(fmt::format("learner: rank {} op {} iteration {}: {}", e.rank, e.op, e.iteration, what));
  }

  // Compress the shard's part of the gradient as the worker sends it (error feedback per worker).
  void push(const LearnEvent& e) {
    const auto it = gradients_.find({e.worker, e.iteration});
    if (it == gradients_.end()) fail(e, "a push without a gradient");
    Gradient& g = it->second;
    const auto [lo, hi] = ranges_[static_cast<size_t>(e.shard)];
    VectorXd payload(hi - lo);
    for (Piece& p : pieces_[static_cast<size_t>(e.shard)]) {
      const Eigen::Index n = p.rows * p.cols;
      payload.segment(p.offset - lo, n) = p.codec->encode(e.worker, g.value.segment(p.offset, n), e.iteration);
    }
    versions_[{e.worker, e.iteration, e.shard}] = g.versions[static_cast<size_t>(e.shard)];
    sent_[{e.worker, e.iteration, e.shard}] = std::move(payload);
    if (++g.pushed == static_cast<int>(ranges_.size())) gradients_.erase(it);
  }

  void apply(const LearnEvent& e) {
    const int j = e.shard;
    const auto [lo, hi] = ranges_[static_cast<size_t>(j)];
    std::vector<int> from;
    if (e.worker >= 0) {
      from.push_back(e.worker);  // ASP/SSP: this worker's push alone
    } else {
      for (int w = 0; w < workers_; ++w) from.push_back(w);
    }
    std::vector<VectorXd> decoded;
    for (int w : from) {
      auto node = inbox_.extract({j, e.iteration, w});
      if (node.empty()) fail(e, "an update before its pushes arrived");
      decoded.push_back(std::move(node.mapped()));
      auto v = versions_.extract({w, e.iteration, j});
      if (v.empty()) fail(e, "an update of a push that was never sent");
      t_.staleness(static_cast<double>(version_[static_cast<size_t>(j)] - v.mapped()));
    }
    VectorXd step(hi - lo);
    for (Piece& p : pieces_[static_cast<size_t>(j)]) {
      const Eigen::Index n = p.rows * p.cols;
      std::vector<VectorXd> part;
      for (const VectorXd& d : decoded) part.push_back(d.segment(p.offset - lo, n));
      step.segment(p.offset - lo, n) = p.codec->combine(part);
    }
    server_.segment(lo, hi - lo) -= t_.lr() * step;
    ++version_[static_cast<size_t>(j)];
    if (++applied_[{e.worker, e.iteration}] == static_cast<int>(ranges_.size())) {
      applied_.erase({e.worker, e.iteration});
      t_.updated(e.time, server_);
    }
  }

  using Key = std::tuple<int, int, int>;
  Training& t_;
  int workers_;
  std::vector<std::pair<Eigen::Index, Eigen::Index>> ranges_;
  std::vector<std::vector<Piece>> pieces_;
  VectorXd server_;
  std::vector<long> version_;            // updates applied to each shard
  std::vector<VectorXd> theta_;          // each worker's copy of the parameters
  std::vector<std::vector<long>> seen_;  // the shard versions each worker last pulled
  std::map<std::pair<int, int>, Gradient> gradients_;
  std::map<Key, VectorXd> sent_;   // (worker, iteration, shard): payload on the wire
  std::map<Key, long> versions_;   // (worker, iteration, shard): version the payload was computed on
  std::map<Key, VectorXd> inbox_;  // (shard, iteration, worker): payload at the server
  std::map<Key, std::pair<VectorXd, long>> snapshots_;  // (worker, iteration, shard): parameters sent
  std::map<std::pair<int, int>, int> applied_;          // (worker or -1, iteration): shards applied
};

}  // namespace

std::unique_ptr<SyncRule> make_parameter_server_rule(Training& t, const JobSpec&, int workers, int shards) {
  return std::make_unique<ParameterServerRule>(t, workers, shards);
}

}  // namespace dtsim::learn
