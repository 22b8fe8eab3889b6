// The SimGrid platform of a cluster: one host per device (and per parameter server), links
// inside nodes, NICs, and the switch topology between nodes, with the network model and its
// factors set explicitly from the scenario (never SimGrid's accidental defaults).
#pragma once

#include <simgrid/s4u.hpp>
#include <vector>

#include "models/cluster.hpp"
#include "models/plan.hpp"

namespace dtsim::sg {

// Must run before the platform is built: sets the network model (CM02 without TCP factors for
// RDMA; LV08 with its TCP factors for TCP) and silences SimGrid's own logging below warnings.
void configure_engine(simgrid::s4u::Engine& engine, const ClusterSpec& cluster);

struct Platform {
  std::vector<simgrid::s4u::Host*> rank_hosts;  // index: plan rank
  // Effective FLOP/s of each rank's host; an op of t seconds (roofline) runs as t * speed FLOPs.
  std::vector<double> rank_speed;
};

// Builds the platform for the plan's placement (Placement::node, ::local; dedicated server hosts
// at nodes >= cluster.nodes). Route properties (checked by the tests):
//  - two devices of one node: latency intra.latency, bottleneck intra.rate;
//  - two different nodes: latency nic.latency + hops * topology.switch_latency, bottleneck the
//    node's NICs (nics * nic.rate), never a narrower link on an uncontended path.
Platform build_platform(const ClusterSpec& cluster, const Plan& plan);

}  // namespace dtsim::sg
