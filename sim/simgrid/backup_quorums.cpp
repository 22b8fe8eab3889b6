// Backup-worker quorums: arrivals counted per job and iteration; the arrival that completes a
// quorum cancels the compute runs of the workers left behind.
#include "sim/simgrid/backup_quorums.hpp"

namespace sg4 = simgrid::s4u;

namespace dtsim::sg {

BackupQuorums::BackupQuorums(const Plan& plan, RankProgress& progress) : plan_(plan), progress_(progress) {
  for (const RankProgram& r : plan.ranks) {
    quorum_op_.push_back(-1);
    for (const Op& op : r.ops) {
      if (std::holds_alternative<QuorumOp>(op.body)) quorum_op_.back() = op.id;
    }
  }
}

void BackupQuorums::create() {
  for (size_t j = 0; j < plan_.jobs.size(); ++j) {
    Job& q = jobs_[static_cast<int>(j)];
    q.mutex = sg4::Mutex::create();
    q.changed = sg4::ConditionVariable::create();
  }
}

bool BackupQuorums::abandoned(int rank, int it, int op) const {
  const int q = quorum_op_[rank];
  return op < q && jobs_.at(plan_.ranks[rank].job).passed.count(it) > 0;
}

void BackupQuorums::arrive(int rank, const QuorumOp& q, int it) {
  Job& st = jobs_.at(q.job);
  if (st.passed.count(it)) return;
  if (++st.arrived[it] >= q.needed) {
    st.passed.insert(it);
    st.arrived.erase(it);
    for (int w : plan_.jobs[q.job].workers) {
      RankState& other = progress_[w];
      if (w == rank || other.iteration != it || !other.running || other.running_first >= quorum_op_[w]) continue;
      other.running->cancel();
    }
    st.changed->notify_all();
    return;
  }
  std::unique_lock lock(*st.mutex);
  while (!st.passed.count(it)) st.changed->wait(lock);
}

}  // namespace dtsim::sg
