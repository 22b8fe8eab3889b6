// Contention in the analytical engine (cluster.contention.compute, cost::compute_kept): a rank alone
// on its device computes at a fraction of its rate while it communicates. Such a rank runs one
// compute op at a time (the others of its streams wait in turn); whenever its communication begins
// or ends the op's work done so far is taken off and its end moves.
#pragma once

#include <deque>
#include <unordered_set>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/plan/plan.hpp"
#include "sim/analytical/device_turns.hpp"
#include "sim/analytical/event_queue.hpp"

namespace dtsim::analytical {

class Contention {
 public:
  Contention(const ClusterSpec& cluster, const Plan& plan, EventQueue& events, DeviceTurns& turns);

  // The fraction of its compute rate the rank keeps while it communicates; below 1: contended.
  double kept(int rank) const { return kept_[rank]; }
  bool contended(int rank) const { return kept_[rank] < 1; }

  // A contended rank's compute op: `work` seconds of full-rate work, at `under` of the rate while the
  // rank communicates, after the ops before it on the device.
  void compute(int rank, int op, double now, double work, double under);
  // The rank's contended compute op ends now (cut short): the device takes the next.
  void start_next(int rank, double now);

  // A transfer of the rank begins at `now`: under contention its compute slows (until end_comm's event).
  void begin_comm(int rank, double now) {
    if (kept_[rank] < 1 && communicating_[rank]++ == 0) retime(rank, now);
  }
  // The done event of a transfer's op, at `end`.
  void end_comm(double end, int rank, int op, double start) {
    const long seq = events_.push(end, true, rank, op, start);
    if (kept_[rank] < 1) in_flight_.insert(seq);
  }
  // A communication op from `start` to `end` (a collective): its done event; under contention the
  // rank's compute slows from `start` on.
  void comm(double end, int rank, int op, double start);

  // A done event came up: the communication it ends no longer slows compute, the compute op it
  // ends leaves the device to the next.
  void finished(const Event& e) {
    if (!in_flight_.empty() && in_flight_.erase(e.seq) > 0 && --communicating_[e.rank] == 0) retime(e.rank, e.time);
    if (kept_[e.rank] < 1 && runs_[e.rank].seq == e.seq) start_next(e.rank, e.time);
  }

 private:
  struct Run {
    int op = -1;
    long seq = -1;
    double start = 0;  // of the op
    double since = 0;  // of the current rate
    double work = 0;   // full-rate seconds left at `since`
    double under = 1;
    struct Waiting {
      int op;
      double work;
      double under;
    };
    std::deque<Waiting> waiting;
  };
  double rate(int rank) const { return communicating_[rank] > 0 ? runs_[rank].under : 1.0; }
  void schedule(int rank);
  void retime(int rank, double now);  // the rank's rate changed at `now`

  const Plan& plan_;
  EventQueue& events_;
  DeviceTurns& turns_;
  std::vector<double> kept_;            // by rank
  std::vector<int> communicating_;      // by rank: its communication ops in flight (under contention)
  std::unordered_set<long> in_flight_;  // done events of those ops
  std::vector<Run> runs_;               // by rank, under contention
};

}  // namespace dtsim::analytical
