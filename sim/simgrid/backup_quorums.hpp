// Backup workers (QuorumOp): in each iteration the first `needed` workers of a job to reach their
// quorum op pass together; every worker still before its quorum op in that iteration abandons its
// compute there: the run in progress is cancelled, the ops after it end without work.
#pragma once

#include <simgrid/s4u.hpp>

#include <map>
#include <set>
#include <vector>

#include "core/plan/plan.hpp"
#include "sim/simgrid/rank_progress.hpp"

namespace dtsim::sg {

class BackupQuorums {
 public:
  BackupQuorums(const Plan& plan, RankProgress& progress);
  void create();  // the synchronisation objects, before the engine runs (creating them may yield)
  // The rank reaches its quorum op of `iteration`; returns once the quorum has passed.
  void arrive(int rank, const QuorumOp& q, int iteration);
  // Whether op `op` of the rank in `iteration` comes before its quorum op, and the quorum has passed.
  bool abandoned(int rank, int iteration, int op) const;

 private:
  struct Job {
    std::map<int, int> arrived;  // per iteration
    std::set<int> passed;        // iterations whose quorum has passed
    simgrid::s4u::MutexPtr mutex;
    simgrid::s4u::ConditionVariablePtr changed;
  };
  const Plan& plan_;
  RankProgress& progress_;
  std::vector<int> quorum_op_;  // each rank's quorum op, or -1
  std::map<int, Job> jobs_;
};

}  // namespace dtsim::sg
