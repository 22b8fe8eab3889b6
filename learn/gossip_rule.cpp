// Gossip jobs (AD-PSGD, Lian et al. 2018): each worker takes its gradient on its own model; when
// its exchange with the iteration's peer ends, the two models become their average (both of them,
// as AD-PSGD's atomic averaging does, at that moment of the simulated order); at its optimizer
// step the worker applies its own gradient to its model. Evaluation looks at the workers' mean
// model; after every update the consensus distance (mean squared distance of the workers' models
// from their mean) is recorded.
#include <map>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "learn/sync_rule.hpp"

namespace dtsim::learn {
namespace {

using Eigen::VectorXd;

class GossipRule final : public SyncRule {
 public:
  GossipRule(Training& t, int workers) : t_(t), theta_(static_cast<size_t>(workers), t.initial()) {}

  void on(const LearnEvent& e) override {
    VectorXd& mine = theta_[static_cast<size_t>(e.worker)];
    switch (e.kind) {
      case EventKind::Gradient: gradients_[{e.worker, e.iteration}] = t_.gradient(e.worker, mine); return;
      case EventKind::Gossip: {
        if (e.peer < 0 || e.peer == e.worker) return;
        VectorXd& theirs = theta_[static_cast<size_t>(e.peer)];
        mine = 0.5 * (mine + theirs);
        theirs = mine;
        return;
      }
      case EventKind::WorkerStep: {
        auto node = gradients_.extract({e.worker, e.iteration});
        if (node.empty()) {
          throw RuntimeError(
              fmt::format("learner: worker {} steps in iteration {} without a gradient", e.worker, e.iteration));
        }
        mine -= t_.lr() * node.mapped();
        const VectorXd mean = model();
        double distance = 0;
        for (const VectorXd& x : theta_) distance += (x - mean).squaredNorm();
        t_.consensus(distance / static_cast<double>(theta_.size()));
        t_.updated(e.time, mean);
        return;
      }
      default: return;
    }
  }

  VectorXd model() const override {
    VectorXd sum = theta_.front();
    for (size_t w = 1; w < theta_.size(); ++w) sum += theta_[w];
    return sum / static_cast<double>(theta_.size());
  }

 private:
  Training& t_;
  std::vector<VectorXd> theta_;
  std::map<std::pair<int, int>, VectorXd> gradients_;
};

}  // namespace

std::unique_ptr<SyncRule> make_gossip_rule(Training& t, int workers) {
  return std::make_unique<GossipRule>(t, workers);
}

}  // namespace dtsim::learn
