// Backup workers in the analytical engine (backup_quorums.hpp).
#include "sim/analytical/backup_quorums.hpp"

#include <algorithm>

namespace dtsim::analytical {

BackupQuorums::BackupQuorums(const Plan& plan, EventQueue& events, const RankProgress& progress, DeviceTurns& turns,
                             Contention& contention)
    : plan_(plan), events_(events), progress_(progress), turns_(turns), contention_(contention) {
  for (const auto& r : plan.ranks) {
    int q = -1;
    for (const Op& op : r.ops) {
      if (std::holds_alternative<QuorumOp>(op.body)) q = op.id;
    }
    quorum_op_.push_back(q);
  }
}

void BackupQuorums::arrive(const Event& e, const QuorumOp& q, int it) {
  Job& job = jobs_[q.job];
  if (job.passed.count(it)) {
    events_.push(e.time, true, e.rank, e.op, e.time);
    return;
  }
  auto& arrived = job.arrived[it];
  arrived.push_back({e.rank, e.op, e.time});
  if (static_cast<int>(arrived.size()) < q.needed) return;
  job.passed.insert(it);
  for (const auto& a : arrived) events_.push(e.time, true, a.rank, a.op, a.since);
  job.arrived.erase(it);
  for (int w : plan_.jobs[q.job].workers) {
    Running& run = turns_.running(w);
    if (run.op < 0 || progress_.iteration(w) != it || run.op >= quorum_op_[w]) continue;
    if (!events_.cancel(run.seq)) continue;
    turns_.free_early(w, run.end, e.time);
    events_.push(e.time, true, w, run.op, std::min(run.start, e.time), true, true);
    run.op = -1;
    if (contention_.contended(w)) contention_.start_next(w, e.time);  // its device takes the next op
  }
}

}  // namespace dtsim::analytical
