// Contention in the analytical engine (contention.hpp).
#include "sim/analytical/contention.hpp"

#include <algorithm>

#include "models/cost/cores.hpp"

namespace dtsim::analytical {

Contention::Contention(const ClusterSpec& cluster, const Plan& plan, EventQueue& events, DeviceTurns& turns)
    : plan_(plan), events_(events), turns_(turns), kept_(cost::compute_kept(cluster, plan)) {
  communicating_.assign(plan.ranks.size(), 0);
  runs_.resize(plan.ranks.size());
}

void Contention::compute(int rank, int op, double now, double work, double under) {
  Run& d = runs_[rank];
  if (d.op >= 0) {
    d.waiting.push_back(Run::Waiting{op, work, under});
    return;
  }
  d.op = op;
  d.start = d.since = now;
  d.work = work;
  d.under = under;
  schedule(rank);
}

void Contention::start_next(int rank, double now) {
  Run& d = runs_[rank];
  d.op = -1;
  d.seq = -1;
  if (d.waiting.empty()) return;
  const Run::Waiting next = d.waiting.front();
  d.waiting.pop_front();
  compute(rank, next.op, now, next.work, next.under);
}

void Contention::comm(double end, int rank, int op, double start) {
  const long seq = events_.push(end, true, rank, op, start);
  if (kept_[rank] >= 1 || end <= start) return;
  in_flight_.insert(seq);
  if (communicating_[rank]++ == 0) retime(rank, start);
}

void Contention::schedule(int rank) {
  Run& d = runs_[rank];
  const Profile* profile = plan_.speed_profile_of(rank);
  const double full = d.work / rate(rank);
  const double end = profile ? profile->finish(d.since, full) : d.since + full;
  d.seq = events_.push(end, true, rank, d.op, d.start);
  turns_.running(rank) = Running{d.op, d.seq, d.start, end};
}

// The work done so far is taken off, the op's end moves.
void Contention::retime(int rank, double now) {
  Run& d = runs_[rank];
  if (d.op < 0) return;
  if (now > d.since) {
    const Profile* profile = plan_.speed_profile_of(rank);
    const double old_rate = communicating_[rank] > 0 ? 1.0 : d.under;  // before this change
    const double done = old_rate * (profile ? profile->work_between(d.since, now) : now - d.since);
    d.work = std::max(0.0, d.work - done);
    d.since = now;
  }
  events_.cancel(d.seq);
  schedule(rank);
}

}  // namespace dtsim::analytical
