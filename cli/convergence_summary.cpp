// Formatting of the convergence table: per job, updates, final loss and accuracy, and the
// simulated time and updates to the target loss; the gradients backup workers kept and the
// consensus distance of gossip.
#include "cli/convergence_summary.hpp"

#include <fmt/format.h>

#include "core/base/units.hpp"

namespace dtsim::cli {

void print_convergence(std::ostream& os, const Scenario& s, const std::vector<learn::ConvergenceResult>& results) {
  if (results.empty()) return;
  const ConvergenceSpec& c = s.run.convergence;
  const char* data = c.dataset == ProxyDataset::Synthetic ? "synthetic data"
                                                          : (c.dataset == ProxyDataset::Csv ? "a CSV file" : "MNIST");
  os << fmt::format("\nconvergence ({} proxy on {}, batch {}/worker, lr {}, target loss {}):\n",
                    c.model == ProxyModel::Softmax ? "softmax" : fmt::format("mlp({})", c.hidden), data, c.batch, c.lr,
                    c.target_loss);
  os << fmt::format("  {:<14} {:<28} {:>8} {:>10} {:>9} {:>15} {:>17}\n", "job", "policy", "updates", "final loss",
                    "accuracy", "time to target", "updates to target");
  for (const auto& r : results) {
    const auto& last = r.curve.back();
    os << fmt::format("  {:<14} {:<28} {:>8} {:>10.4f} {:>8.1f}% {:>15} {:>17}\n", r.job, r.policy, r.updates,
                      last.loss, 100.0 * last.accuracy,
                      r.time_to_target_s ? format_time(*r.time_to_target_s) : std::string("not reached"),
                      r.updates_to_target ? fmt::format("{}", *r.updates_to_target) : std::string("-"));
  }
  for (const auto& r : results) {
    if (r.kept_gradients) {
      os << fmt::format("  {}: {} of {} gradients kept by the quorums\n", r.job, *r.kept_gradients, r.gradients);
    }
    if (r.final_consensus) {
      os << fmt::format(
          "  {}: consensus distance (mean squared distance of the workers' models from their mean) "
          "mean {:.3g}, max {:.3g}, final {:.3g}\n",
          r.job, *r.mean_consensus, *r.max_consensus, *r.final_consensus);
    }
  }
}

}  // namespace dtsim::cli
