// The inter-node topologies built from SimGrid zones: star, fat-tree and torus (the dragonfly
// is in dragonfly.cpp), and the attachment of dedicated parameter-server nodes.
// Latency between two nodes is nic.latency + hops * switch_latency, hops as ClusterSpec::hops().
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "sim/simgrid/platform_parts.hpp"

namespace dtsim::sg::detail {

namespace {
constexpr auto kUp = sg4::LinkInRoute::Direction::UP;
constexpr auto kDown = sg4::LinkInRoute::Direction::DOWN;

sg4::NetZone* new_star(const std::string& name, sg4::NetZone* parent) {
  sg4::NetZone* zone = sg4::create_star_zone(name);
  if (parent != nullptr) zone->set_parent(parent);
  return zone;
}
}  // namespace

// Star: one switch. Legs carry no link: the switch's latency is folded into the NICs, half on
// each side, so node a -> node b crosses NIC_a (up) and NIC_b (down):
//   latency nic.latency + switch_latency, bottleneck the NICs.
//
//   n0   n1   n2  ...  [server nodes]
//    \    |    |    /
//        [switch]
Fabric build_star(NodeFactory& factory, const ClusterSpec& cluster, sg4::NetZone* parent, int extra) {
  Fabric f;
  f.zone = new_star("star", parent);
  f.node_share = cluster.topology.switch_latency / 2;
  for (int n = 0; n < cluster.nodes + extra; ++n) {
    const ZoneRef node = factory.make(f.zone, n, f.node_share);
    attach_to_star(f.zone, node);
    if (n < cluster.nodes) f.nodes.push_back(node);
  }
  return f;
}

// Fat-tree, built by hand from star zones: leaves of `nodes_per_switch` nodes (the last leaf may
// hold fewer) under one spine level. Each leaf's uplinks are one aggregated split-duplex link of
// (nodes in the leaf / oversubscription) * node bandwidth per direction, latency switch_latency
// (an oversubscription above the leaf's size leaves less than one NIC's worth of uplink):
//
//                      [spine]                      spine level: a star zone
//              up_0 /           \ up_1              uplink = leaf downlinks / oversubscription
//          [leaf 0]               [leaf 1]          leaf switch: a router in a switch zone
//         /  |  |  \             /  |  |  \         legs carry no link (half a switch in each NIC)
//       n0  n1  n2  n3         n4  n5  n6  n7
//
// Within a leaf: nic.latency + 1 switch; across leaves: nic.latency + 3 switches (the two
// uplink crossings carry one switch each). SimGrid's own fat-tree is not used: it gives every
// link one latency (node cables included, so 2 links within a leaf and 4 across cannot give 1
// and 3 switch hops without a negative NIC latency), and its uplinks come in whole links
// (oversubscription 4 nodes / 3 would not fit). The aggregated uplink is a fluid model of a
// leaf spreading its flows evenly over its uplinks (no hash collisions).
Fabric build_fat_tree(NodeFactory& factory, const ClusterSpec& cluster, sg4::NetZone* parent) {
  const TopologySpec& t = cluster.topology;
  const int per = t.nodes_per_switch > 0 && t.nodes_per_switch < cluster.nodes ? t.nodes_per_switch : cluster.nodes;
  if (per == cluster.nodes) return build_star(factory, cluster, parent, 0);  // one leaf switch

  Fabric f;
  f.zone = new_star("fat_tree", parent);
  f.node_share = t.switch_latency / 2;
  const int leaves = (cluster.nodes + per - 1) / per;
  for (int k = 0; k < leaves; ++k) {
    const std::string name = fmt::format("leaf{}", k);
    sg4::NetZone* leaf = new_star(name, f.zone);
    const ZoneRef sw = make_switch(leaf, name + ".sw");
    const int first = k * per;
    const int members = std::min(per, cluster.nodes - first);
    for (int n = first; n < first + members; ++n) {
      const ZoneRef node = factory.make(leaf, n, f.node_share);
      attach_to_star(leaf, node);
      f.nodes.push_back(node);
    }
    const double uplinks = members / t.oversubscription;
    sg4::Link* up = f.zone->create_split_duplex_link(name + ".up", uplinks * cluster.node_bandwidth())
                        ->set_latency(t.switch_latency);
    attach_to_star(f.zone, ZoneRef{leaf, sw.gateway}, {{up, kUp}});
  }
  return f;
}

// Torus: SimGrid's torus zone, one position per node (the node's gateway is its router), one
// split-duplex link per neighbour pair and dimension, node bandwidth per direction, latency
// switch_latency. SimGrid routes dimension by dimension (the first dimension first), each the
// shorter way around the ring, so a route crosses ClusterSpec::hops() links (Manhattan distance
// with wrap-around): latency nic.latency + hops * switch_latency.
//
//   n0 -- n1 -- n2 -- n3 --(wrap to n0)       dims 4x4: node = x + 4 y
//   |     |     |     |
//   n4 -- n5 -- n6 -- n7 --
//   |     |     |     |
//  ...  (wrap to the first row)
Fabric build_torus(NodeFactory& factory, const ClusterSpec& cluster, sg4::NetZone* parent) {
  Fabric f;
  f.node_share = 0;  // every switch is a torus router, on the links
  // A dimension of length 1 has no links; SimGrid would declare a node's link to itself once per such
  // dimension and abort on the second (found by tests/cli/extremes_grid_test.cpp).
  std::vector<unsigned long> dims;
  for (int d : cluster.topology.dims) {
    if (d > 1) dims.push_back(static_cast<unsigned long>(d));
  }
  if (dims.empty()) dims.push_back(1);
  std::vector<ZoneRef>& nodes = f.nodes;
  sg4::ClusterCallbacks callbacks(
      [&factory, &nodes](sg4::NetZone* zone, const std::vector<unsigned long>& /*coord*/, unsigned long id) {
        const ZoneRef node = factory.make(zone, static_cast<int>(id), 0.0);
        nodes.push_back(node);
        return std::make_pair(node.zone->get_netpoint(), node.gateway);
      });
  f.zone = sg4::create_torus_zone("torus", parent, dims, callbacks, cluster.node_bandwidth(),
                                  cluster.topology.switch_latency, sg4::Link::SharingPolicy::SPLITDUPLEX);
  return f;
}

// Dedicated server nodes beside a fat-tree, torus or dragonfly: the root is a star zone holding
// the fabric and the server nodes; every server node reaches every cluster node through one
// switch (a bypass route per pair and direction over the node's port on that switch), so that
//   server <-> node: (server_nic.latency + nic.latency) / 2 + 1 switch, bottleneck the NICs,
// as on a star. Server traffic loads the nodes' NICs but not the fabric's inner links.
//
//        [server switch] ---- s0, s1, ...       (a star zone: the root)
//         |port n0 |port n1 ...
//   +-----+--------+------------+
//   |  fabric (fat-tree/torus/  |
//   |  dragonfly) of the nodes  |
//   +---------------------------+
void attach_servers(NodeFactory& factory, const ClusterSpec& cluster, sg4::NetZone* top, const Fabric& fabric,
                    int count) {
  const double sw = cluster.topology.switch_latency;
  std::vector<ZoneRef> servers;
  for (int k = 0; k < count; ++k) {
    const ZoneRef server = factory.make(top, cluster.nodes + k, sw / 2);
    attach_to_star(top, server);
    servers.push_back(server);
  }
  for (size_t n = 0; n < fabric.nodes.size(); ++n) {
    const ZoneRef& node = fabric.nodes[n];
    sg4::Link* port = top->create_split_duplex_link(fmt::format("n{}.port", n), cluster.node_bandwidth())
                          ->set_latency(sw / 2 - fabric.node_share);
    for (const ZoneRef& server : servers) {
      NetPoint* s = server.zone->get_netpoint();
      NetPoint* d = node.zone->get_netpoint();
      top->add_bypass_route(s, d, server.gateway, node.gateway, {{port, kDown}});
      top->add_bypass_route(d, s, node.gateway, server.gateway, {{port, kUp}});
    }
  }
}

}  // namespace dtsim::sg::detail
