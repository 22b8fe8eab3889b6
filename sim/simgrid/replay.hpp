// What the SimGrid actors share: the plan, op durations, per-rank progress, mailboxes and the
// collectives' phases, each built once.
#pragma once

#include <simgrid/s4u.hpp>

#include <array>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/plan/batch_balance.hpp"
#include "core/run/observer.hpp"
#include "core/scenario/scenario.hpp"
#include "sim/cost/cost_model.hpp"
#include "sim/simgrid/core_holds.hpp"
#include "sim/simgrid/executor.hpp"
#include "sim/simgrid/platform.hpp"
#include "sim/simgrid/stream_units.hpp"

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
  simgrid::s4u::ConditionVariablePtr changed;
};

// A collective's phases with, per phase, each group rank's outgoing and incoming flows.
struct CollectiveReplay {
  std::vector<FlowPhase> phases;
  std::vector<std::vector<std::vector<int>>> out;  // [phase][group rank] -> flow indices
  std::vector<std::vector<std::vector<int>>> in;
};

class Replay {
 public:
  Replay(const ClusterSpec& cluster, const Plan& plan, const Platform& platform, Observer& observer,
         SimGridOptions options, SimGridStats& stats);

  void start();           // creates the actors; then Engine::run()
  bool complete() const;  // every rank ran every iteration

 private:
  void stream_actor(int rank, Stream stream);
  void posted_actor(int rank, int op);
  void wait_deps(int rank, const std::vector<int>& ops);
  bool deps_done(int rank, int op) const;  // in the rank's current iteration
  void finish(int rank, int op, double start, double end, bool record = true, bool cut = false);
  void finish_comm(int rank, int op, double arrived);
  void together(const CollectiveOp& c, int iteration, int which);
  using MeetKey = std::array<int, 6>;
  void meet(const MeetKey& key, unsigned parties);  // a barrier of `parties` actors, made by the first
  void p2p_transfer(int src, int dst, int tag, int iteration, double bytes, bool sending);
  // What takes turns computing: a rank's host (shared by a server's per-worker ranks), a shared
  // core, or under CoreSharing::Processor the rank itself (the core's ranks share its speed).
  std::pair<simgrid::s4u::Host*, int> device_of(int rank) const;
  void gate(int rank, const GateOp& g, int iteration);
  void quorum(int rank, const QuorumOp& q, int iteration);
  bool abandoned(int rank, int iteration, int op) const;
  void gossip(int rank, const GossipOp& g, int iteration);
  void spawn_posted(int rank);
  void execute(int rank, int op);
  void execute_run(int rank, const std::vector<int>& ops);
  void replay_collective(int rank, const CollectiveOp& c);
  const CollectiveReplay& collective(const CollectiveOp& c);
  simgrid::s4u::Mailbox* mailbox(char kind, int dst, int src, int tag);
  double latency(int src, int dst);
  double seconds(int rank, const Op& op);

  const ClusterSpec& cluster_;
  const Plan& plan_;
  const Platform& platform_;
  Observer& observer_;
  SimGridOptions options_;
  SimGridStats& stats_;
  CostModel costs_;
  BatchBalancer balance_;
  int total_iterations_;
  double latency_factor_;
  std::vector<RankState> states_;
  std::vector<std::vector<int>> posted_ops_;
  std::map<std::tuple<int, int, CollectiveKind, double>, std::unique_ptr<CollectiveReplay>> collectives_;
  std::map<std::tuple<char, int, int, int>, simgrid::s4u::Mailbox*> mailboxes_;
  std::map<std::pair<int, int>, double> latencies_;
  // Latest arrival at a collective (group, seq, iteration) or a message (-1 - src, dst * 65536 + tag, iteration).
  std::map<std::tuple<int, int, int>, double> arrivals_;
  std::vector<double> posted_free_;  // by rank: when its posted stream's host work ends (send_host_time)
  // Collectives ('c', group, seq, iteration, start or end) and messages between p2p endpoints ('p',
  // src, dst, tag, iteration, start or end).
  std::map<MeetKey, simgrid::s4u::BarrierPtr> barriers_;
  struct GateState {
    std::vector<int> progress;  // gates reached by each worker of the job
    simgrid::s4u::MutexPtr mutex;
    simgrid::s4u::ConditionVariablePtr changed;
  };
  std::map<int, GateState> gates_;
  struct QuorumState {
    std::map<int, int> arrived;  // per iteration
    std::set<int> passed;        // iterations whose quorum has passed
    simgrid::s4u::MutexPtr mutex;
    simgrid::s4u::ConditionVariablePtr changed;
  };
  std::map<int, QuorumState> quorums_;  // per job
  std::vector<int> quorum_op_;          // each rank's quorum op, or -1
  std::map<std::pair<simgrid::s4u::Host*, int>, simgrid::s4u::MutexPtr>
      host_locks_;   // devices (device_of) taking turns
  CoreHolds holds_;  // communication on the ranks' cores (cpu-backend profiles)
};

}  // namespace dtsim::sg
