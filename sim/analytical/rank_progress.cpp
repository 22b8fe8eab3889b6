// Each rank's progress through its program in the analytical engine (rank_progress.hpp).
#include "sim/analytical/rank_progress.hpp"

namespace dtsim::analytical {

RankProgress::RankProgress(const Plan& plan, EventQueue& events) : plan_(plan), events_(events) {
  for (const auto& r : plan.ranks) graphs_.push_back(build_op_graph(r));
  remaining_.resize(plan.ranks.size());
  done_count_.assign(plan.ranks.size(), 0);
  iteration_.assign(plan.ranks.size(), 0);
}

void RankProgress::start(int rank, double t) {
  if (iteration_[rank] >= plan_.warmup + plan_.iterations) return;
  remaining_[rank] = graphs_[rank].preds;
  done_count_[rank] = 0;
  for (size_t i = 0; i < remaining_[rank].size(); ++i) {
    if (remaining_[rank][i] == 0) events_.push(t, false, rank, static_cast<int>(i));
  }
}

bool RankProgress::complete() const {
  const int total = plan_.warmup + plan_.iterations;
  for (size_t r = 0; r < plan_.ranks.size(); ++r) {
    if (iteration_[r] < total && !plan_.ranks[r].ops.empty()) return false;
  }
  return true;
}

}  // namespace dtsim::analytical
