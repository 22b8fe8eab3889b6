// Each rank's progress through its program in the analytical engine: which iteration it is in, and
// in it the ops still waiting for their deps (op_graph.hpp) and how many are done. An op done makes
// ready the ops that waited only for it; a rank's last op of an iteration starts its next.
#pragma once

#include <vector>

#include "core/plan/plan.hpp"
#include "sim/analytical/event_queue.hpp"
#include "sim/analytical/op_graph.hpp"

namespace dtsim::analytical {

class RankProgress {
 public:
  // Throws RuntimeError when an op depends on a later one.
  RankProgress(const Plan& plan, EventQueue& events);

  // Makes ready at `t` the ops of the rank's current iteration that wait for nothing (none past the
  // last iteration).
  void start(int rank, double t);
  // Op `op` of the rank is done at `t`.
  void done(int rank, int op, double t) {
    for (int s : graphs_[rank].succs(op)) {
      if (--remaining_[rank][s] == 0) events_.push(t, false, rank, s);
    }
    if (++done_count_[rank] == static_cast<int>(plan_.ranks[rank].ops.size())) {
      ++iteration_[rank];
      start(rank, t);
    }
  }
  int iteration(int rank) const { return iteration_[rank]; }
  bool complete() const;  // every rank with a program ran every iteration

 private:
  const Plan& plan_;
  EventQueue& events_;
  std::vector<OpGraph> graphs_;
  std::vector<std::vector<int>> remaining_;  // by rank and op: the deps it still waits for
  std::vector<int> done_count_;
  std::vector<int> iteration_;
};

}  // namespace dtsim::analytical
