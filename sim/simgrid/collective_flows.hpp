// A collective replayed as its algorithm's phases of flows between the group's members, over
// mailboxes: each member sends its flows of a phase and receives its own, then the next phase.
// At flow fidelity a phase stands for several rounds merged into one message per pair; the
// other rounds' latencies are slept. NCCL's AllReduce, ReduceScatter and AllGather (strategy.allreduce.algorithm:
// nccl) are one phase of ring flows at either fidelity (CostModel::nccl_replay). The phases of each (group, kind,
// bytes) are built once.
#pragma once

#include <simgrid/s4u.hpp>

#include <compare>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"
#include "models/cost/cost_model.hpp"
#include "sim/simgrid/executor.hpp"
#include "sim/simgrid/mailboxes.hpp"
#include "sim/simgrid/platform.hpp"

namespace dtsim::sg {

class CollectiveFlows {
 public:
  CollectiveFlows(const ClusterSpec& cluster, const Plan& plan, const cost::CostModel& costs, const Platform& platform,
                  Fidelity fidelity, Mailboxes& mailboxes, SimGridStats& stats);

  // `rank`'s part of collective `c`: returns when its last phase has ended for it.
  void replay(int rank, const CollectiveOp& c);

 private:
  // A collective's phases with, per phase, each group rank's outgoing and incoming flows.
  struct Phases {
    std::vector<FlowPhase> phases;
    std::vector<std::vector<std::vector<int>>> out;  // [phase][group rank] -> flow indices
    std::vector<std::vector<std::vector<int>>> in;
    double delay = 0;  // before the first phase (strategy.allreduce.algorithm: nccl, CostModel::nccl_replay)
  };
  struct PhasesKey {
    int group = 0;
    int size = 0;  // the group's ranks
    CollectiveKind kind = CollectiveKind::AllReduce;
    double bytes = 0;
    auto operator<=>(const PhasesKey&) const = default;
  };
  const Phases& phases(const CollectiveOp& c);
  double latency(int src, int dst);  // of the route, as SimGrid charges it

  const ClusterSpec& cluster_;
  const Plan& plan_;
  const cost::CostModel& costs_;
  const Platform& platform_;
  Fidelity fidelity_;
  Mailboxes& mailboxes_;
  SimGridStats& stats_;
  double latency_factor_;
  std::map<PhasesKey, std::unique_ptr<Phases>> phases_;
  std::map<std::pair<int, int>, double> latencies_;
};

}  // namespace dtsim::sg
