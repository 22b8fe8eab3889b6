// The training events of a run, read off its op records in simulated-time order: a worker's
// gradient is taken on the parameters it holds when its forward pass starts (start of its first
// forward op; nothing changes them before its backward ends, and any push or exchange of that
// gradient comes later), a push leaves (start of the send),
// a server receives it (end of its recv), applies an update (end of its update op), sends parameters (start of its
// send), a worker installs them (end of its pull), a worker steps its optimizer after an AllReduce (end of its update
// op). Backup workers: the gradients an iteration's quorum keeps (at the moment it passes); gossip:
// a worker's exchange with its peer of the iteration (end of its GossipOp). Nothing here changes
// timing: the records come from a finished run.
#pragma once

#include <vector>

#include "core/plan/plan.hpp"
#include "core/run/observer.hpp"

namespace dtsim::learn {

// In causal order: within one iteration at one instant, a lower kind happens first.
enum class EventKind { Gradient, Push, ServerRecv, ServerUpdate, ServerSend, Pull, Kept, Gossip, WorkerStep };

struct LearnEvent {
  double time = 0;
  EventKind kind = EventKind::Gradient;
  int iteration = 0;
  int worker = -1;  // index in the job's workers (-1: a BSP server's update, which is everyone's)
  int shard = -1;   // parameter-server shard, -1 otherwise
  int peer = -1;    // Gossip: the peer's index in the job's workers
  int rank = 0;
  int op = 0;
};

// The job's events sorted by (time, iteration, kind, rank, op): one total, deterministic order.
std::vector<LearnEvent> learner_events(const Plan& plan, int job, const std::vector<OpRecord>& records);

}  // namespace dtsim::learn
