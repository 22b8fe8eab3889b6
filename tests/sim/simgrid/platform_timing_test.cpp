// Transfer times on the SimGrid platform: latency + S/B exactly under RDMA (no TCP factors, no
// window bound), slower under TCP, and max-min sharing of a NIC and of a fat-tree's uplinks.
#include <catch2/catch.hpp>

#include "platform_fixtures.hpp"

using namespace dtsim;

namespace {

// Two nodes of one device on a star with NIC latency `nic_latency`.
ClusterSpec pair_of_nodes(double nic_latency, Transport transport) {
  ClusterSpec c = test::cluster(TopologyKind::Star, 2, 1);
  c.nic.latency = nic_latency;
  c.transport = transport;
  return c;
}

}  // namespace

TEST_CASE("RDMA: one transfer takes latency + S/B exactly, up to 1 GB over 1 ms") {
  for (double nic_latency : {1e-6, 100e-6, 1e-3}) {
    for (double s : {1e3, 1e6, 1e9}) {
      const ClusterSpec c = pair_of_nodes(nic_latency, Transport::Rdma);
      const double t = test::transfer_times(c, test::one_per_node(c), {{0, 1, s}})[0];
      const double expected = nic_latency + c.topology.switch_latency + s / c.node_bandwidth();
      INFO("latency " << nic_latency << " s, " << s << " bytes");
      CHECK(t == Approx(expected).epsilon(1e-6));
    }
  }
  SECTION("inside a node: intra.latency + S/intra.rate") {
    const ClusterSpec c = test::cluster(TopologyKind::Star, 1, 2);
    const double t = test::transfer_times(c, test::placed({{0, 0}, {0, 1}}), {{0, 1, 1e9}})[0];
    CHECK(t == Approx(c.intra.latency + 1e9 / c.intra.rate).epsilon(1e-6));
  }
}

TEST_CASE("TCP (LV08) is slower than RDMA, small messages pay 13.01 x the latency") {
  const double latency = 100e-6, small = 1e3;
  const ClusterSpec rdma = pair_of_nodes(latency, Transport::Rdma);
  const ClusterSpec tcp = pair_of_nodes(latency, Transport::Tcp);
  const Plan p = test::one_per_node(rdma);
  const double t_rdma = test::transfer_times(rdma, p, {{0, 1, small}})[0];
  const double t_tcp = test::transfer_times(tcp, p, {{0, 1, small}})[0];
  const double route_latency = latency + rdma.topology.switch_latency;
  CHECK(t_tcp > t_rdma);
  CHECK(t_tcp == Approx(13.01 * route_latency).epsilon(1e-3));
  CHECK(test::transfer_times(tcp, p, {{0, 1, 1e9}})[0] > test::transfer_times(rdma, p, {{0, 1, 1e9}})[0]);
}

TEST_CASE("two flows through one node's NIC take twice as long as one") {
  const ClusterSpec c = test::cluster(TopologyKind::Star, 3, 2);
  const Plan p = test::placed({{0, 0}, {0, 1}, {1, 0}, {2, 0}});
  const double s = 1e9, latency = c.nic.latency + c.topology.switch_latency;
  const double one = test::transfer_times(c, p, {{0, 2, s}})[0];
  const std::vector<double> two = test::transfer_times(c, p, {{0, 2, s}, {1, 3, s}});
  CHECK(one == Approx(latency + s / c.node_bandwidth()).epsilon(1e-6));
  for (double t : two) CHECK(t == Approx(latency + 2 * s / c.node_bandwidth()).epsilon(1e-6));
  CHECK((two[0] - latency) / (one - latency) == Approx(2).epsilon(1e-6));
  SECTION("into one NIC as well") {
    const std::vector<double> in = test::transfer_times(c, p, {{2, 0, s}, {3, 1, s}});
    for (double t : in) CHECK(t == Approx(latency + 2 * s / c.node_bandwidth()).epsilon(1e-6));
  }
}

TEST_CASE("RDMA: flows of different route latencies share a NIC equally (plain max-min)") {
  // Through node 0's NIC: one flow within the leaf (1 switch), one across leaves (3 switches),
  // and a third into node 4's NIC beside the second. CM02's default solver would weight each flow
  // by its route latency (the shorter flow gets more); the fair-bottleneck solver does not.
  ClusterSpec c = test::cluster(TopologyKind::FatTree, 8, 2);
  c.topology.nodes_per_switch = 4;
  c.topology.switch_latency = 10e-6;
  const Plan p = test::placed({{0, 0}, {0, 1}, {1, 0}, {4, 0}, {5, 0}});
  const double s = 1e9, b = c.node_bandwidth(), near = c.nic.latency + 10e-6, far = c.nic.latency + 30e-6;
  const std::vector<double> t = test::transfer_times(c, p, {{0, 2, s}, {1, 3, s}, {4, 3, s / 2}});
  // The near flows run alone at b until the far one starts, then all three at b/2. The third
  // ends first, which does not free node 0's NIC; when the first ends, the far flow has
  // b * (far - near) bytes left, sent at b.
  const double head = b * (far - near);
  CHECK(t[0] == Approx(far + (s - head) / (b / 2)).epsilon(1e-6));
  CHECK(t[1] == Approx(t[0] + head / b).epsilon(1e-6));
  CHECK(t[2] == Approx(far + (s / 2 - head) / (b / 2)).epsilon(1e-6));
}

TEST_CASE("fat-tree: 4 flows leaf to leaf take twice as long with oversubscription 2 as without") {
  const double s = 1e9;
  std::vector<double> longest;
  for (double o : {1.0, 2.0}) {
    ClusterSpec c = test::cluster(TopologyKind::FatTree, 8, 1);
    c.topology.nodes_per_switch = 4;
    c.topology.oversubscription = o;
    const std::vector<double> t =
        test::transfer_times(c, test::one_per_node(c), {{0, 4, s}, {1, 5, s}, {2, 6, s}, {3, 7, s}});
    const double latency = c.nic.latency + 3 * c.topology.switch_latency;
    for (double e : t) CHECK(e == Approx(latency + o * s / c.node_bandwidth()).epsilon(1e-6));
    longest.push_back(*std::max_element(t.begin(), t.end()) - latency);
  }
  CHECK(longest[1] / longest[0] == Approx(2).epsilon(1e-6));
}

TEST_CASE("parameter-server incast: the server's NIC is shared by all workers") {
  for (TopologyKind kind : {TopologyKind::Star, TopologyKind::Torus}) {
    ClusterSpec c = test::cluster(kind, 4, 1);
    c.topology.dims = {2, 2};
    const Plan p = test::one_per_node(c, 1);  // server rank 4
    const double s = 1e8;
    const std::vector<double> t = test::transfer_times(c, p, {{0, 4, s}, {1, 4, s}, {2, 4, s}, {3, 4, s}});
    const double latency = (c.server_nic.latency + c.nic.latency) / 2 + c.topology.switch_latency;
    for (double e : t) CHECK(e == Approx(latency + 4 * s / c.server_nic.rate).epsilon(1e-6));
  }
}
