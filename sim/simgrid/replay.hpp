// The replay of a Plan by SimGrid actors: one actor per rank and FIFO stream, one per posted op of
// an iteration. Replay issues each op and times it; each concern it coordinates has its own class:
//   RankProgress    ops done per rank and iteration, dependencies, records (rank_progress.hpp)
//   Rendezvous      a communication's latest arrival and its parties' barriers (rendezvous.hpp)
//   CollectiveFlows a collective as its algorithm's phases of flows (collective_flows.hpp)
//   Messages        sends, receives and gossip between ranks (messages.hpp)
//   SspGates, BackupQuorums  the SSP and backup-worker policies' synchronisation
//   DeviceTurns     ranks taking turns on a shared device (device_turns.hpp)
//   CoreHolds       communication holding the ranks' cores (cpu-backend profiles, core_holds.hpp)
//   Contention      compute slowed while its rank communicates (contention.hpp)
// What names a communication among these is in models/cost/comm_keys.hpp, which both engines share.
#pragma once

#include <simgrid/s4u.hpp>

#include <deque>
#include <vector>

#include "core/plan/batch_balance.hpp"
#include "core/run/observer.hpp"
#include "core/scenario/scenario.hpp"
#include "models/cost/cost_model.hpp"
#include "sim/simgrid/backup_quorums.hpp"
#include "sim/simgrid/collective_flows.hpp"
#include "sim/simgrid/contention.hpp"
#include "sim/simgrid/core_holds.hpp"
#include "sim/simgrid/device_turns.hpp"
#include "sim/simgrid/executor.hpp"
#include "sim/simgrid/mailboxes.hpp"
#include "sim/simgrid/messages.hpp"
#include "sim/simgrid/platform.hpp"
#include "sim/simgrid/rank_progress.hpp"
#include "sim/simgrid/rendezvous.hpp"
#include "sim/simgrid/ssp_gates.hpp"

namespace dtsim::sg {

class Replay {
 public:
  Replay(const ClusterSpec& cluster, const Plan& plan, const Platform& platform, Observer& observer,
         SimGridOptions options, SimGridStats& stats);

  void start();           // creates the actors; then Engine::run()
  bool complete() const;  // every rank ran every iteration

 private:
  void stream_actor(int rank, Stream stream);
  // A posted op is issued once its dependencies are done in the rank's current iteration (at the
  // iteration's start for those with none). A send is handed to one of its rank's send actors: an
  // idle one takes it, or a new one is created; they stay for the next sends (a pipeline's thousands
  // of sends reuse a few) and leave once the rank has run its last iteration. Other posted ops get an
  // actor each.
  void posted_actor(int rank);
  void next_iteration(int rank);                // posts the iteration's ops without deps, or ends the actors
  void spawn_posted_after(int rank, int done);  // posts those whose last dependency `done` was
  void post(int rank, int op);
  void execute(int rank, int op);
  void execute_run(int rank, const std::vector<int>& ops);  // compute ops as one activity
  void collective(int rank, int op, const CollectiveOp& c, int iteration);
  void send(int rank, int op, const SendOp& s, int iteration, double start);
  void message(int rank, int op, const cost::MessageInstance& m, double bytes, Side side);
  void gossip(int rank, int op, const GossipOp& g, int iteration, double start);
  void finish_comm(int rank, int op, double arrived);  // started at the latest arrival, ends now
  double seconds(int rank, const Op& op);

  const Plan& plan_;
  const Platform& platform_;
  SimGridOptions options_;
  SimGridStats& stats_;
  cost::CostModel costs_;
  BatchBalancer balance_;
  RankProgress progress_;
  Rendezvous rendezvous_;
  Mailboxes mailboxes_;
  CollectiveFlows collectives_;
  Messages messages_;
  SspGates gates_;
  BackupQuorums quorums_;
  DeviceTurns turns_;
  CoreHolds holds_;
  Contention contention_;
  std::vector<std::vector<int>> posted_ops_;                 // by rank: its posted ops without deps
  std::vector<std::vector<std::vector<int>>> posted_after_;  // by rank and op: the posted ops that depend on it
  struct PostedQueue {
    std::deque<int> ops;  // posted, not yet taken by an actor
    int idle = 0;         // actors waiting for an op
    simgrid::s4u::ConditionVariablePtr ready;
  };
  std::vector<PostedQueue> posted_;  // by rank
  std::vector<double> posted_free_;  // by rank: when its posted stream's host work ends (send_host_time)
};

}  // namespace dtsim::sg
