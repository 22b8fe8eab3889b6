// Point-to-point transfers in the analytical engine: a message's, or a gossip's two directions.
// The transfers made ready at one instant start together (or, with comm_holds_cores, once their
// ranks' cores are free) and share the ports they cross with every transfer in flight (PortShare,
// port_share.hpp: max-min fair, shared again whenever one starts or drains), so N equal pushes into
// one server port end together at N*S/B. A transfer ends one latency after its bytes have drained.
#pragma once

#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/plan/plan.hpp"
#include "models/cost/comm_keys.hpp"
#include "models/cost/cost_model.hpp"
#include "sim/analytical/contention.hpp"
#include "sim/analytical/core_holds.hpp"
#include "sim/analytical/port_share.hpp"
#include "sim/analytical/rendezvous.hpp"

namespace dtsim::analytical {

class Transfers {
 public:
  Transfers(const ClusterSpec& cluster, const Plan& plan, const cost::CostModel& costs, CoreHolds& holds,
            Contention& contention);

  // Message `m` of `bytes` between `last`, the side posted last, and `first`.
  void message(const cost::MessageInstance& m, double bytes, Party last, Party first);
  // Gossip `g` by op `p`: `bytes` to `peer` and as many back; the op ends with the later direction.
  void gossip(const cost::GossipInstance& g, Party p, int peer, double bytes);

  // The transfers made ready at `now` start (after every event of the instant).
  void flush(double now);
  // When the next transfer drains (infinity when none flows).
  double next_drain() const { return share_.next_drain(); }
  // The transfers drained by `now` (at most next_drain()) end one latency later.
  void drain(double now);
  bool empty() const { return share_.empty(); }

 private:
  struct Transfer {
    cost::TransferPath path;
    double bytes;
    Party a;   // the op whose done event comes first
    Party b;   // the other side's, or rank -1: a gossip's direction
    int peer;  // the rank at the other end (b's, or a gossip's peer)
    int iteration;
    // Copies of this transfer through the sending and the receiving port: a representative's
    // mirrored ranks send theirs through its node's NICs at the same instant (RankProgram::mirrored).
    double copies_from = 1;
    double copies_to = 1;
    double start = 0;  // when its bytes began to flow
  };
  struct Exchange {
    int left = 0;     // directions in flight
    double last = 0;  // the later end
  };
  void start(std::vector<Transfer> transfers);  // joins the instant's batch, or waits for its cores

  const ClusterSpec& cluster_;
  const Plan& plan_;
  const cost::CostModel& costs_;
  CoreHolds& holds_;
  Contention& contention_;
  std::vector<Transfer> batch_;                // made ready at this instant
  PortShare share_;                            // the transfers in flight
  std::unordered_map<int, Transfer> flowing_;  // by flow id
  int next_flow_ = 0;
  std::map<cost::GossipInstance, Exchange> exchanges_;  // gossip in flight
};

}  // namespace dtsim::analytical
