// AllReduce jobs: BSP averages the workers' (compressed) gradients of an iteration and every
// worker applies the average at its optimizer step; local SGD steps each worker on its own
// gradient and, every `period` iterations, averages the models (compressing each worker's change
// since the last average); backup workers average the gradients the iteration's quorum kept
// (Kept events) and every worker, dropped or not, applies that average.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "learn/sync_rule.hpp"

namespace dtsim::learn {
namespace {

using Eigen::VectorXd;

class AllReduceRule final : public SyncRule {
 public:
  AllReduceRule(Training& t, const JobSpec& job, int workers)
      : t_(t),
        workers_(workers),
        local_sgd_(job.sync.kind == SyncKind::LocalSgd),
        backup_(job.sync.kind == SyncKind::Backup),
        period_(job.sync.period),
        pieces_(t.pieces(0, t.size(), 0)),
        theta_(static_cast<size_t>(workers), t.initial()),
        anchor_(t.initial()) {}

  void on(const LearnEvent& e) override {
    if (e.kind == EventKind::Gradient) {
      gradients_[{e.worker, e.iteration}] = t_.gradient(e.worker, theta_[static_cast<size_t>(e.worker)]);
      return;
    }
    if (e.kind == EventKind::Kept) {
      steps_[e.iteration].kept.push_back(e.worker);
      return;
    }
    if (e.kind != EventKind::WorkerStep) return;
    Step& step = steps_[e.iteration];
    if (step.stepped == 0) step.exchanged = exchange(e.iteration, step.kept, step.result);
    VectorXd& theta = theta_[static_cast<size_t>(e.worker)];
    if (!step.exchanged) {
      theta -= t_.lr() * gradient_of(e.worker, e.iteration);  // local SGD between averages
    } else if (local_sgd_) {
      theta = step.result;
    } else {
      theta -= t_.lr() * step.result;
    }
    if (++step.stepped == workers_) {
      for (int w = 0; w < workers_; ++w) gradients_.erase({w, e.iteration});
      steps_.erase(e.iteration);
      t_.updated(e.time, model());
    }
  }

  VectorXd model() const override {
    if (!local_sgd_) return theta_.front();
    VectorXd sum = theta_.front();
    for (size_t w = 1; w < theta_.size(); ++w) sum += theta_[w];
    return sum / static_cast<double>(theta_.size());
  }

 private:
  struct Step {
    int stepped = 0;
    bool exchanged = false;
    std::vector<int> kept;  // backup workers: the workers whose gradients the quorum kept
    VectorXd result;        // BSP: the averaged gradient; local SGD: the averaged model
  };

  const VectorXd& gradient_of(int w, int iteration) const {
    const auto it = gradients_.find({w, iteration});
    if (it == gradients_.end()) {
      throw RuntimeError(fmt::format("learner: worker {} steps in iteration {} without a gradient", w, iteration));
    }
    return it->second;
  }

  // The iteration's exchange, once every worker's gradient is in (the collectives end before any step).
  bool exchange(int iteration, std::vector<int> kept, VectorXd& result) {
    if (local_sgd_ && (iteration + 1) % period_ != 0) return false;
    if (!backup_) {
      kept.clear();
      for (int w = 0; w < workers_; ++w) kept.push_back(w);
    }
    std::sort(kept.begin(), kept.end());
    if (kept.empty()) throw RuntimeError(fmt::format("learner: no gradient kept in iteration {}", iteration));
    if (backup_) t_.kept(static_cast<long>(kept.size()));
    std::vector<VectorXd> inputs;
    for (int w : kept) {
      const VectorXd& g = gradient_of(w, iteration);
      inputs.push_back(local_sgd_ ? VectorXd(theta_[static_cast<size_t>(w)] - t_.lr() * g - anchor_) : g);
    }
    result.resize(t_.size());
    for (Piece& p : pieces_) {
      const Eigen::Index n = p.rows * p.cols;
      std::vector<VectorXd> part;
      for (const VectorXd& v : inputs) part.push_back(v.segment(p.offset, n));
      result.segment(p.offset, n) = p.codec->all_reduce(kept, part, iteration);
    }
    if (local_sgd_) {
      result += anchor_;
      anchor_ = result;
    }
    return true;
  }

  Training& t_;
  int workers_;
  bool local_sgd_;
  bool backup_;
  int period_;
  std::vector<Piece> pieces_;
  std::vector<VectorXd> theta_;
  VectorXd anchor_;  // local SGD: the model of the last average
  std::map<std::pair<int, int>, VectorXd> gradients_;
  std::map<int, Step> steps_;
};

}  // namespace

std::unique_ptr<SyncRule> make_allreduce_rule(Training& t, const JobSpec& job, int workers) {
  return std::make_unique<AllReduceRule>(t, job, workers);
}

}  // namespace dtsim::learn
