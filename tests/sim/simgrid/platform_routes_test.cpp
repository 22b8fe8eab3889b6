// Route properties of the SimGrid platform, as SimGrid itself resolves them (Host::route_to):
// latency and narrowest link inside a node, between nodes of every topology, and to servers.
#include <catch2/catch.hpp>

#include "platform_fixtures.hpp"

using namespace dtsim;
using test::Route;

namespace {

constexpr double kEps = 1e-12;

// Every ordered pair of the ranks 0..n-1.
std::vector<std::pair<int, int>> all_pairs(int n) {
  std::vector<std::pair<int, int>> p;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) p.emplace_back(a, b);
  return p;
}

// Node-to-node routes (one rank per node, rank = node) against `hops(a, b)`.
template <typename Hops>
void check_inter_node(const ClusterSpec& c, Hops hops) {
  const auto pairs = all_pairs(c.nodes);
  const std::vector<Route> r = test::routes(c, test::one_per_node(c), pairs);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto [a, b] = pairs[i];
    INFO(topology_name(c.topology.kind) << ": node " << a << " -> node " << b);
    CHECK(r[i].latency == Approx(c.nic.latency + hops(a, b) * c.topology.switch_latency).epsilon(kEps));
    CHECK(r[i].bandwidth == Approx(c.node_bandwidth()).epsilon(kEps));
  }
}

void check_inter_node(const ClusterSpec& c) {
  check_inter_node(c, [&c](int a, int b) { return c.hops(a, b); });
}

}  // namespace

TEST_CASE("two devices of one node: latency intra.latency, bottleneck intra.rate") {
  const ClusterSpec c = test::cluster(TopologyKind::Star, 2, 4);
  const Plan p = test::placed({{0, 0}, {0, 1}, {0, 3}, {1, 2}, {1, 0}});
  const std::vector<Route> r = test::routes(c, p, {{0, 1}, {1, 0}, {0, 2}, {2, 1}, {3, 4}});
  for (const Route& route : r) {
    CHECK(route.latency == Approx(c.intra.latency).epsilon(kEps));
    CHECK(route.bandwidth == Approx(c.intra.rate).epsilon(kEps));
    CHECK(route.links == 2);
  }
}

TEST_CASE("a device leaving its node crosses the NIC and nothing else of the node") {
  // PCIe-like node whose device links are slower than the NICs: they must not slow inter-node traffic.
  ClusterSpec c = test::cluster(TopologyKind::Star, 2, 2);
  c.intra = LinkSpec{10e9, 50e-6};
  const std::vector<Route> r = test::routes(c, test::placed({{0, 0}, {0, 1}, {1, 1}}), {{0, 2}, {2, 1}});
  for (const Route& route : r) {
    CHECK(route.latency == Approx(c.nic.latency + c.topology.switch_latency).epsilon(kEps));
    CHECK(route.bandwidth == Approx(c.node_bandwidth()).epsilon(kEps));
    CHECK(route.links == 2);  // NIC up, NIC down
  }
}

TEST_CASE("star: nic.latency + 1 switch between any two nodes, bottleneck the node's NICs") {
  check_inter_node(test::cluster(TopologyKind::Star, 5, 1), [](int, int) { return 1; });
}

TEST_CASE("fat-tree: 1 switch within a leaf, 3 across leaves, NIC-bound with or without oversubscription") {
  for (double o : {1.0, 2.0}) {
    ClusterSpec c = test::cluster(TopologyKind::FatTree, 8, 1);
    c.topology.nodes_per_switch = 4;
    c.topology.oversubscription = o;
    check_inter_node(c, [](int a, int b) { return a / 4 == b / 4 ? 1 : 3; });
  }
  SECTION("a partial last leaf; and one leaf for all (nodes_per_switch 0)") {
    ClusterSpec c = test::cluster(TopologyKind::FatTree, 7, 1);
    c.topology.nodes_per_switch = 3;
    check_inter_node(c, [](int a, int b) { return a / 3 == b / 3 ? 1 : 3; });
    c.topology.nodes_per_switch = 0;
    check_inter_node(c, [](int, int) { return 1; });
  }
}

TEST_CASE("torus: Manhattan distance with wrap-around, dimension order") {
  ClusterSpec c = test::cluster(TopologyKind::Torus, 16, 1);
  c.topology.dims = {4, 4};
  check_inter_node(c);
  // By hand (node = x + 4 y): (0,0)->(3,3) wraps both ways; (0,0)->(2,2) is 2 + 2.
  const std::vector<Route> r = test::routes(c, test::one_per_node(c), {{0, 15}, {0, 10}, {5, 6}, {1, 13}});
  const double sw = c.topology.switch_latency, nic = c.nic.latency;
  CHECK(r[0].latency == Approx(nic + 2 * sw).epsilon(kEps));
  CHECK(r[1].latency == Approx(nic + 4 * sw).epsilon(kEps));
  CHECK(r[2].latency == Approx(nic + 1 * sw).epsilon(kEps));
  CHECK(r[3].latency == Approx(nic + 1 * sw).epsilon(kEps));  // y 0 -> 3: one hop around

  c.nodes = 8;
  c.topology.dims = {2, 2, 2};
  check_inter_node(c);
  CHECK(c.hops(0, 7) == 3);
}

TEST_CASE("dragonfly: 1 switch on one router, 2 in a group, 2 to 4 across groups (minimal routing)") {
  ClusterSpec c = test::cluster(TopologyKind::Dragonfly, 12, 1);
  c.topology.groups = 3;
  c.topology.routers_per_group = 2;
  c.topology.nodes_per_router = 2;
  // By hand. Nodes 2g.. are group g; router index (n / 2) % 2. Group i's link to group j
  // leaves from router j % 2 and lands on router i % 2 of group j.
  //  0 -> 1: same router. 0 -> 2: same group. 0 (g0 r0) -> 4 (g1 r0): g0's link to g1 is on
  //  r1 (green), lands on g1 r0 = destination: 3. 2 (g0 r1) -> 4: on r1, lands on r0: 2.
  //  2 (g0 r1) -> 6 (g1 r1): lands on r0, green to r1: 3. 0 (g0 r0) -> 6 (g1 r1): 4.
  //  0 (g0 r0) -> 8 (g2 r0): g0's link to g2 is on r0, lands on g2's r0: 2.
  const std::vector<std::pair<int, int>> pairs = {{0, 1}, {0, 2}, {0, 4}, {2, 4}, {2, 6}, {0, 6}, {0, 8}, {6, 0}};
  const std::vector<int> hops = {1, 2, 3, 2, 3, 4, 2, 4};
  const std::vector<Route> r = test::routes(c, test::one_per_node(c), pairs);
  for (size_t i = 0; i < pairs.size(); ++i) {
    INFO("node " << pairs[i].first << " -> node " << pairs[i].second);
    CHECK(c.hops(pairs[i].first, pairs[i].second) == hops[i]);
    CHECK(r[i].latency == Approx(c.nic.latency + hops[i] * c.topology.switch_latency).epsilon(kEps));
  }
  check_inter_node(c);

  c.nodes = 6;
  c.topology.groups = 2;
  c.topology.routers_per_group = 3;
  c.topology.nodes_per_router = 1;
  check_inter_node(c);
}

TEST_CASE("dedicated servers: one switch from every node, bottleneck the narrower NIC, on every topology") {
  for (TopologyKind kind : {TopologyKind::Star, TopologyKind::FatTree, TopologyKind::Torus, TopologyKind::Dragonfly}) {
    ClusterSpec c = test::cluster(kind, 8, 2);
    c.topology.nodes_per_switch = 4;
    c.topology.oversubscription = 2;
    c.topology.dims = {2, 4};
    c.topology.groups = 2;
    c.topology.routers_per_group = 2;
    c.topology.nodes_per_router = 2;
    const Plan p = test::one_per_node(c, 2);  // ranks 0..7 workers, 8 and 9 servers
    std::vector<std::pair<int, int>> pairs;
    for (int n = 0; n < c.nodes; ++n) {
      pairs.emplace_back(8, n);
      pairs.emplace_back(n, 9);
    }
    pairs.emplace_back(8, 9);
    pairs.emplace_back(0, 7);  // worker routes unchanged by the servers
    const std::vector<Route> r = test::routes(c, p, pairs);
    const double sw = c.topology.switch_latency;
    for (size_t i = 0; i + 2 < pairs.size(); ++i) {
      INFO(topology_name(kind) << ": rank " << pairs[i].first << " -> rank " << pairs[i].second);
      CHECK(r[i].latency == Approx((c.server_nic.latency + c.nic.latency) / 2 + sw).epsilon(kEps));
      CHECK(r[i].bandwidth == Approx(c.server_nic.rate).epsilon(kEps));
    }
    INFO(topology_name(kind));
    CHECK(r[pairs.size() - 2].latency == Approx(c.server_nic.latency + sw).epsilon(kEps));
    CHECK(r[pairs.size() - 1].latency == Approx(c.nic.latency + c.hops(0, 7) * sw).epsilon(kEps));
    CHECK(r[pairs.size() - 1].bandwidth == Approx(c.node_bandwidth()).epsilon(kEps));
  }
}

TEST_CASE("colocated servers share a worker node over intra-node links") {
  ClusterSpec c = test::cluster(TopologyKind::FatTree, 8, 2);
  c.topology.nodes_per_switch = 4;
  // Workers on both devices of nodes 0 and 5; server ranks on nodes 0 and 5 after the devices.
  const Plan p = test::placed({{0, 0}, {0, 1}, {5, 0}}, {{0, 2}, {5, 2}});
  const std::vector<Route> r = test::routes(c, p, {{0, 3}, {3, 1}, {2, 4}, {0, 4}, {3, 4}});
  for (int i : {0, 1, 2}) {
    CHECK(r[i].latency == Approx(c.intra.latency).epsilon(kEps));
    CHECK(r[i].bandwidth == Approx(c.intra.rate).epsilon(kEps));
  }
  for (int i : {3, 4}) {
    CHECK(r[i].latency == Approx(c.nic.latency + 3 * c.topology.switch_latency).epsilon(kEps));
    CHECK(r[i].bandwidth == Approx(c.node_bandwidth()).epsilon(kEps));
  }
}
