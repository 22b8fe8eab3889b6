// Each rank's progress through its iterations: which ops of the current iteration are done, who
// waits on them, and the compute run in progress. Finishing an op records it with the observer;
// finishing a rank's last op of an iteration starts its next iteration.
#pragma once

#include <simgrid/s4u.hpp>

#include <functional>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/run/observer.hpp"

namespace dtsim::sg {

// A rank's progress through the current iteration.
struct RankState {
  int iteration = 0;
  std::vector<char> done;
  std::vector<char> wakes;  // an actor other than the op's own waits on it
  int done_count = 0;
  simgrid::s4u::ExecPtr running;  // the compute run in progress, and its first op (backup workers cancel it)
  int running_first = -1;
  bool stream_claim = false;  // comm_holds_cores: the compute stream holds the core across its ops
  simgrid::s4u::MutexPtr mutex;
  simgrid::s4u::ConditionVariablePtr changed;  // the rank began another iteration
  // By op: notified when it is done, for the ops another actor waits on (wakes), else null. One per
  // op, not one per rank: a rank's posted ops all wait from the start of the iteration, and waking
  // each of them at every op would cost their number per op (quadratic in micro-batches).
  std::vector<simgrid::s4u::ConditionVariablePtr> op_done;
};

class RankProgress {
 public:
  // `next_iteration(rank)` runs when a rank has ended an iteration (and begins the next, if any),
  // before the actors waiting on the rank are woken (the replay posts the iteration's ops there);
  // `done(rank, op)` when an op of the rank's current iteration is done, before anyone is woken (the
  // replay spawns the posted ops whose last dependency it was).
  RankProgress(const Plan& plan, Observer& observer, std::function<void(int)> next_iteration,
               std::function<void(int, int)> done);

  RankState& operator[](int rank) { return states_[static_cast<size_t>(rank)]; }
  const RankState& operator[](int rank) const { return states_[static_cast<size_t>(rank)]; }
  int iterations() const { return total_iterations_; }  // warm-up and measured
  bool complete() const;                                // every rank ran every iteration

  void wait_iteration(int rank, int iteration);  // until the rank is in `iteration`
  void wait_deps(int rank, const std::vector<int>& deps);
  bool deps_done(int rank, int op) const;  // in the rank's current iteration
  // Op `op` of the rank's current iteration ran from start to end (cut: cancelled by a quorum);
  // record = false leaves no record (an op that does not run in this iteration, or was abandoned).
  void finish(int rank, int op, double start, double end, bool record = true, bool cut = false);

 private:
  const Plan& plan_;
  Observer& observer_;
  std::function<void(int)> next_iteration_;
  std::function<void(int, int)> done_;
  int total_iterations_;
  std::vector<RankState> states_;
};

}  // namespace dtsim::sg
