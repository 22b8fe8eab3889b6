// The SimGrid platform of a cluster: one host per device (and per parameter server), links
// inside nodes, NICs, and the switch topology between nodes, with the network model and its
// factors set explicitly from the scenario (never SimGrid's accidental defaults).
//
// Network model (configure_engine; SimGrid 3.32, values measured on this build):
//   RDMA: a fluid max-min model without TCP corrections, so that a transfer of S bytes alone on
//   its route takes latency + S / bottleneck exactly (tests: 1 KB, 1 MB, 1 GB; 1 us to 1 ms).
//     network/model:CM02             LV08, the default, multiplies latency by 13.01 and bandwidth
//                                    by 0.97 (a fit of TCP slow start)
//     network/latency-factor:1       CM02's defaults, stated
//     network/bandwidth-factor:1
//     network/crosstraffic:0         no ACK traffic (5% of each flow on the reverse route)
//     network/TCP-gamma:0            no TCP window bound. CM02 caps a flow at gamma / (2 latency):
//                                    with the default gamma (4 MiB) and 1 ms, 2.1 GB/s, and 1 GB
//                                    over a 12.5 GB/s link took 0.478 s instead of 0.081 s. SimGrid
//                                    applies the cap only when gamma > 0, so 0 removes it (measured:
//                                    0.081 s, as with gamma 1e300).
//     network/weight-S:0             no S / bandwidth term in a flow's sharing weight
//     network/solver:fairbottleneck  plain max-min. Even with weight-S 0, CM02 weights each flow by
//                                    its route latency, and the default solver (maxmin) then gives
//                                    a 1-switch flow more of a shared NIC than a 3-switch one
//                                    (1 GB each, 50 GB/s, 2 us NIC, 0.3 us switch: 0.0359 s and
//                                    0.0400 s instead of 0.0400 s both); the fair-bottleneck
//                                    solver ignores the weights (0.0400 s both), works with the
//                                    lazy updates, and ran rings of 256 to 4096 flows within 30%
//                                    of maxmin's wall time.
//   TCP: LV08 with its published factors, all stated: network/model:LV08,
//     latency-factor:13.01, bandwidth-factor:0.97, weight-S:20537, TCP-gamma:4194304 (the
//     default window), crosstraffic:1, solver:maxmin (latency-weighted sharing, as TCP).
//   Calibrated (cluster.calibration): CM02 as for RDMA (whatever the transport), with the profile's
//     per-message-size latency and bandwidth factors as callbacks (calibrated_network.cpp).
//   SimGrid's logging is set to warnings first, so that not even these changes are logged.
//
// Platform (build_platform; drawings in the files that build each part):
//   - node_zone.cpp: a zone per node with a gateway router; devices on split-duplex intra links
//     (intra.latency / 2 each way), the node's NICs as one split-duplex link of nics * nic.rate
//     and nic.latency / 2 per crossing; a device leaves the node through the NIC alone.
//   - topologies.cpp: star (one switch); fat-tree (star zones by hand: leaves and one spine level,
//     aggregated uplinks of max(1, nodes / oversubscription) node bandwidths); torus (SimGrid's
//     torus zone, dimension-order routing); dragonfly.cpp: nested zones with SimGrid's wiring
//     and minimal routing. Switches apart from nodes (star, fat-tree, dragonfly) fold half of the
//     first and last switch into the NIC latency; the others lie on the links between switches.
//   - dedicated server nodes (Placement::node >= cluster.nodes, NIC cluster.server_nic): leaves
//     of the star; beside a fat-tree, torus or dragonfly, in a star zone at the root, one switch
//     from every node through bypass routes (server traffic loads the NICs, not the fabric).
//     Colocated server ranks are hosts of a worker node past its devices, on intra links.
//   - hosts "n<node>.d<local>", speed device.peak(fp32) * efficiency (worker) or
//     server_device.peak(fp32) * server_device.efficiency (server); any positive speed works.
//   - calibrated (calibrated_network.cpp): with a same_host_p2p link, a point-to-point endpoint per
//     rank on links of that class (node_zone.cpp); with shared cores, hosts "core<c>" in a zone of
//     their own (shared_cores.cpp), on which the ranks of core c compute, sharing its speed.
// Building is quadratic in the number of node zones inside SimGrid 3.32 (every new link or host
// name is looked up in every zone): 512 nodes of 8 devices 0.25 s, 2048 nodes about 5 s.
#pragma once

#include <simgrid/s4u.hpp>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/plan/plan.hpp"

namespace dtsim::sg {

// Must run before the platform is built: sets the network model (CM02 without TCP factors for
// RDMA; LV08 with its TCP factors for TCP) and silences SimGrid's own logging below warnings.
void configure_engine(simgrid::s4u::Engine& engine, const ClusterSpec& cluster);

struct Platform {
  std::vector<simgrid::s4u::Host*> rank_hosts;  // index: plan rank
  // Effective FLOP/s of each rank's compute host; an op of t seconds (roofline) runs as t * speed FLOPs.
  std::vector<double> rank_speed;
  // With the profile's same_host_p2p link: each rank's point-to-point endpoint ("n<node>.d<local>.p2p",
  // node_zone.cpp), between which sends, receives and gossip go; empty otherwise (they go between
  // rank_hosts).
  std::vector<simgrid::s4u::Host*> p2p_hosts;
  // With shared cores (shared_cores(): a profile measured with this many ranks on fewer cores): the
  // host of the core each rank computes on, shared with the core's other ranks; empty otherwise (a
  // rank computes on its own host).
  std::vector<simgrid::s4u::Host*> compute_hosts;
};

// Builds the platform for the plan's placement (Placement::node, ::local; dedicated server hosts
// at nodes >= cluster.nodes, plan.server_nodes of them). Route properties (tests/sim/simgrid/):
//  - two devices of one node: latency intra.latency, bottleneck intra.rate;
//  - two different nodes: latency nic.latency + hops * topology.switch_latency (hops as
//    ClusterSpec::hops()), bottleneck the node's NICs (nics * nic.rate), never a narrower link on
//    an uncontended path (a fat-tree leaf's uplinks carry at least one node bandwidth);
//  - a dedicated server and a node: (server_nic.latency + nic.latency) / 2 + 1 switch (the
//    analytical engine's max of the two equals it when the latencies are equal, the default),
//    bottleneck the narrower NIC; two dedicated servers: server_nic.latency + 1 switch.
// Throws InputError, before anything is created, when the topology's shape does not match the
// cluster (torus dims, dragonfly sizes, oversubscription < 1), a link has no positive rate, a
// rank is placed outside the cluster or on a taken device, or a rank's device has no speed.
Platform build_platform(const ClusterSpec& cluster, const Plan& plan);

}  // namespace dtsim::sg
