// The dragonfly topology, built by hand from nested zones with the wiring and minimal routing of
// SimGrid's own dragonfly zone, and latencies of exactly one switch_latency per router.
//
//   group 0                              group 1
//   +-------------------------+          +-------------------------+
//   |  r0 ===green=== r1      |          |  r0 ===green=== r1      |
//   |  |  \          /  |     |          |  |  \          /  |     |   routers of a group: all-to-all
//   | n0 n1  ...   n2 n3      |          | n4 n5  ...   n6 n7      |   (green links)
//   +--+----------------------+          +--------+----------------+
//      |  r1 of group 0 <======= blue =======> r0 of group 1          one global (blue) link per
//                                                                     pair of groups
// Group i's link to group j leaves from its router (j mod routers_per_group) and lands on group
// j's router (i mod routers_per_group): SimGrid's wiring (router n of a group holds the link to
// group n), extended with "mod" to more groups than routers per group. Routes are minimal:
//   same router:  nic.latency + 1 switch;
//   same group:   nic.latency + 2 switches (one green link);
//   other group:  nic.latency + (2 + g) switches, g = the green links needed to reach the router
//                 holding the blue link (0 or 1) and to leave the router it lands on (0 or 1).
// ClusterSpec::hops() counts the same. Router links (green, blue) carry the node bandwidth per
// direction. SimGrid's create_dragonfly_zone is not used: it gives every link one latency (the
// node-to-router cables count as hops, so 1, 2, 3 routers would need a negative NIC latency), and
// its wiring indexes past a group's routers when groups > routers per group.
//
// Zones: the root is a full zone of groups; a group is a full zone of router zones; a router
// zone is a star of its nodes and of a switch zone holding the router.
#include <fmt/format.h>

#include <string>

#include "sim/simgrid/platform_parts.hpp"

namespace dtsim::sg::detail {

Fabric build_dragonfly(NodeFactory& factory, const ClusterSpec& cluster, sg4::NetZone* parent) {
  constexpr auto kUp = sg4::LinkInRoute::Direction::UP;
  const TopologySpec& t = cluster.topology;
  const int groups = t.groups, routers = t.routers_per_group, per_router = t.nodes_per_router;
  const double sw = t.switch_latency, bw = cluster.node_bandwidth();

  Fabric f;
  f.zone = sg4::create_full_zone("dragonfly");
  if (parent != nullptr) f.zone->set_parent(parent);
  f.node_share = sw / 2;  // the first and last routers, folded into the NICs

  std::vector<std::vector<ZoneRef>> router_zones(groups);  // [group][router]
  std::vector<sg4::NetZone*> group_zones;
  for (int g = 0; g < groups; ++g) {
    const std::string gname = fmt::format("g{}", g);
    sg4::NetZone* group = sg4::create_full_zone(gname);
    group->set_parent(f.zone);
    group_zones.push_back(group);
    auto& rz = router_zones[g];
    for (int r = 0; r < routers; ++r) {
      const std::string rname = fmt::format("{}.r{}", gname, r);
      sg4::NetZone* zone = sg4::create_star_zone(rname);
      zone->set_parent(group);
      const ZoneRef sw_zone = make_switch(zone, rname + ".sw");
      for (int p = 0; p < per_router; ++p) {
        const ZoneRef node = factory.make(zone, (g * routers + r) * per_router + p, f.node_share);
        attach_to_star(zone, node);
        f.nodes.push_back(node);
      }
      rz.push_back(ZoneRef{zone, sw_zone.gateway});
    }
    for (int a = 0; a < routers; ++a) {
      for (int b = a + 1; b < routers; ++b) {
        sg4::Link* green =
            group->create_split_duplex_link(fmt::format("{}.green{}-{}", gname, a, b), bw)->set_latency(sw);
        group->add_route(rz[a].zone->get_netpoint(), rz[b].zone->get_netpoint(), rz[a].gateway, rz[b].gateway,
                         {{green, kUp}}, true);
      }
    }
  }
  for (int i = 0; i < groups; ++i) {
    for (int j = i + 1; j < groups; ++j) {
      sg4::Link* blue = f.zone->create_split_duplex_link(fmt::format("blue{}-{}", i, j), bw)->set_latency(sw);
      NetPoint* from = router_zones[i][j % routers].gateway;
      NetPoint* to = router_zones[j][i % routers].gateway;
      f.zone->add_route(group_zones[i]->get_netpoint(), group_zones[j]->get_netpoint(), from, to, {{blue, kUp}}, true);
    }
  }
  return f;
}

}  // namespace dtsim::sg::detail
