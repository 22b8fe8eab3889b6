// Where the parties of a communication meet in the analytical engine: a collective starts once
// every member of its group with a program has arrived (in a plan of representatives the others
// mirror them), a message once both its send and its receive have been posted. The time a party
// spends before that is waiting. Also when a collective that starts at an instant ends.
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/plan/plan.hpp"
#include "models/cost/comm_keys.hpp"
#include "models/cost/cost_model.hpp"

namespace dtsim::analytical {

// One side of a communication: a rank and its op.
struct Party {
  int rank;
  int op;
};

class Rendezvous {
 public:
  Rendezvous(const ClusterSpec& cluster, const Plan& plan, const cost::CostModel& costs);

  // `p` arrives at collective `c`: once every member has, their parties in order of arrival (and `c`
  // is forgotten); else none.
  std::vector<Party> arrive(const cost::CollectiveInstance& c, Party p);
  // `p` posts its side of message `m`: once both sides have, the other one (and `m` is forgotten).
  std::optional<Party> arrive(const cost::MessageInstance& m, Party p);

  // When a collective that starts at `now` ends. Under NIC bandwidth profiles its inter-node
  // bandwidth term runs at the slowest profiled NIC of the group, integrated from its start; latency
  // and intra-node terms follow unchanged (an approximation: docs/stragglers.md).
  double collective_end(const CollectiveOp& col, double now) const;

 private:
  const ClusterSpec& cluster_;
  const Plan& plan_;
  const cost::CostModel& costs_;
  std::vector<int> present_;  // by group: its members with a program
  std::unordered_map<cost::CollectiveInstance, std::vector<Party>, cost::CommKeyHash> collectives_;
  std::unordered_map<cost::MessageInstance, Party, cost::CommKeyHash> messages_;  // the side posted first
};

}  // namespace dtsim::analytical
