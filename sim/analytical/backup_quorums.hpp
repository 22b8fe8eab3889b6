// Backup workers (QuorumOp) in the analytical engine: in each iteration the first `needed` workers
// of a job to reach their quorum op pass together; the latecomers' compute before their quorum op
// is abandoned: the op running ends now (its done event cancelled and made again, its device free
// unless another op queued behind it), the ops after it end unrun.
#pragma once

#include <map>
#include <set>
#include <vector>

#include "core/plan/plan.hpp"
#include "sim/analytical/contention.hpp"
#include "sim/analytical/device_turns.hpp"
#include "sim/analytical/event_queue.hpp"
#include "sim/analytical/rank_progress.hpp"

namespace dtsim::analytical {

class BackupQuorums {
 public:
  BackupQuorums(const Plan& plan, EventQueue& events, const RankProgress& progress, DeviceTurns& turns,
                Contention& contention);

  // Whether op `op` of the rank in iteration `it` comes before its quorum op, and the quorum has passed.
  bool abandoned(int rank, int it, int op) const {
    if (op >= quorum_op_[rank]) return false;
    const auto job = jobs_.find(plan_.ranks[rank].job);
    return job != jobs_.end() && job->second.passed.count(it) > 0;
  }
  // The rank of `e` reaches its quorum op of iteration `it`.
  void arrive(const Event& e, const QuorumOp& q, int it);

 private:
  struct Arrival {
    int rank, op;
    double since;
  };
  struct Job {
    std::map<int, std::vector<Arrival>> arrived;  // by iteration, until its quorum passes
    std::set<int> passed;                         // iterations whose quorum has passed
  };
  const Plan& plan_;
  EventQueue& events_;
  const RankProgress& progress_;
  DeviceTurns& turns_;
  Contention& contention_;
  std::vector<int> quorum_op_;  // each rank's quorum op, or -1
  std::map<int, Job> jobs_;
};

}  // namespace dtsim::analytical
