// Builds the SimGrid platform of a cluster for a plan: checks the cluster's shape and the plan's
// placements (InputError before anything is created), then one host per rank in its node's zone,
// under the chosen topology, with dedicated server nodes beside it.
#include "sim/simgrid/platform.hpp"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "core/base/error.hpp"
#include "models/cost/cost_model.hpp"
#include "sim/simgrid/contention.hpp"
#include "sim/simgrid/platform_parts.hpp"

namespace dtsim::sg {

namespace {

using detail::RankHost;

void require(bool ok, const std::string& message) {
  if (!ok) throw InputError(message);
}

void check_link(const LinkSpec& l, const char* what) {
  require(l.rate > 0, fmt::format("{}: the rate must be positive (got {} B/s)", what, l.rate));
  require(l.latency >= 0, fmt::format("{}: the latency must not be negative (got {} s)", what, l.latency));
}

void check_cluster(const ClusterSpec& c) {
  require(c.nodes >= 1, fmt::format("cluster.nodes: need at least one node (got {})", c.nodes));
  require(c.devices_per_node >= 1,
          fmt::format("cluster.devices_per_node: need at least one (got {})", c.devices_per_node));
  require(c.nics >= 1, fmt::format("cluster.nics: need at least one NIC per node (got {})", c.nics));
  check_link(c.nic, "cluster.nic");
  check_link(c.intra, "cluster.intra");
  require(c.nic_profile.times.empty() || c.transport == Transport::Rdma,
          "cluster.nic_profile: the SimGrid engine applies NIC bandwidth profiles under cluster.transport: rdma only "
          "(SimGrid 3.32 keeps a TCP flow at the rate its route had when it started; docs/stragglers.md)");
  const TopologySpec& t = c.topology;
  require(t.switch_latency >= 0, "cluster.topology.switch_latency: must not be negative");
  switch (t.kind) {
    case TopologyKind::Star: break;
    case TopologyKind::FatTree:
      require(t.nodes_per_switch >= 0, "cluster.topology.nodes_per_switch: must not be negative");
      require(t.oversubscription >= 1,
              fmt::format("cluster.topology.oversubscription: must be at least 1 (got {})", t.oversubscription));
      break;
    case TopologyKind::Torus: {
      require(!t.dims.empty(), "a torus needs cluster.topology.dims (e.g. 4x4x2)");
      long product = 1;
      for (int d : t.dims) {
        require(d >= 1, fmt::format("cluster.topology.dims: {} has a dimension below 1", fmt::join(t.dims, "x")));
        product *= d;
      }
      require(product == c.nodes, fmt::format("cluster.topology.dims: {} has {} positions but the cluster has {} nodes",
                                              fmt::join(t.dims, "x"), product, c.nodes));
      break;
    }
    case TopologyKind::Dragonfly: {
      require(t.groups >= 1 && t.routers_per_group >= 1 && t.nodes_per_router >= 1,
              "a dragonfly needs cluster.topology.groups, routers_per_group and nodes_per_router of at least 1");
      const long product = static_cast<long>(t.groups) * t.routers_per_group * t.nodes_per_router;
      require(product == c.nodes, fmt::format("a dragonfly of {} groups x {} routers x {} nodes holds {} nodes but the "
                                              "cluster has {}",
                                              t.groups, t.routers_per_group, t.nodes_per_router, product, c.nodes));
      break;
    }
  }
}

double rank_speed(const ClusterSpec& c, const RankProgram& r) {
  const bool server = r.role == Role::Server;
  const int node = r.where.node;
  const double speed = server ? c.server_device.peak(Dtype::Fp32) * c.server_device.efficiency
                              : c.device_at(node).peak(Dtype::Fp32) * c.efficiency_at(node);
  require(speed > 0,
          fmt::format("rank {}: the {} device '{}' has no positive speed (peak x efficiency = {})", r.rank,
                      server ? "server" : "worker", server ? c.server_device.name : c.device_at(node).name, speed));
  return speed;
}

// The hosts of every node (cluster nodes, then dedicated server nodes), checking placements.
// Server ranks may share a host (an asynchronous server's per-worker threads): `aliases` maps such a
// rank to the first rank on that host.
std::vector<std::vector<RankHost>> place_ranks(const ClusterSpec& c, const Plan& plan, int server_nodes,
                                               std::vector<std::pair<int, int>>& aliases) {
  std::vector<std::vector<RankHost>> at(static_cast<size_t>(c.nodes + server_nodes));
  std::map<std::pair<int, int>, int> taken;
  const ContentionRates contention = contention_rates(c, plan);
  for (size_t i = 0; i < plan.ranks.size(); ++i) {
    const RankProgram& r = plan.ranks[i];
    const Placement& p = r.where;
    require(r.rank == static_cast<int>(i), fmt::format("plan rank {} is listed at position {}", r.rank, i));
    const bool dedicated = p.node >= c.nodes;
    require(p.node >= 0 && p.node < c.nodes + server_nodes,
            fmt::format("rank {} is placed on node {} but the platform has {} nodes and {} server nodes", r.rank,
                        p.node, c.nodes, server_nodes));
    require(!dedicated || r.role == Role::Server,
            fmt::format("rank {} is a worker placed on server node {}", r.rank, p.node));
    require(p.local >= 0 && (r.role == Role::Server || p.local < c.devices_per_node),
            fmt::format("rank {} is placed on device {} of node {}, which has {} devices", r.rank, p.local, p.node,
                        c.devices_per_node));
    const auto [slot, fresh] = taken.try_emplace({p.node, p.local}, r.rank);
    if (!fresh && r.role == Role::Server && plan.ranks[slot->second].role == Role::Server) {
      aliases.emplace_back(r.rank, slot->second);
      continue;
    }
    require(fresh, fmt::format("rank {} is placed on device {} of node {}, which another rank holds", r.rank, p.local,
                               p.node));
    at[static_cast<size_t>(p.node)].push_back(
        RankHost{r.rank, p.local, rank_speed(c, r), plan.speed_profile_of(r.rank), contention.factors[i]});
  }
  return at;
}

}  // namespace

Platform build_platform(const ClusterSpec& scenario_cluster, const Plan& plan) {
  const bool in_cache = cost::data_in_cache(scenario_cluster, plan);
  const ClusterSpec cluster = detail::calibrated_cluster(scenario_cluster, in_cache);
  check_cluster(cluster);
  const int server_nodes = plan.server_nodes;
  require(server_nodes >= 0, fmt::format("the plan has {} server nodes", server_nodes));
  if (server_nodes > 0) check_link(cluster.server_nic, "cluster.servers.nic");

  Platform platform;
  platform.rank_hosts.assign(plan.ranks.size(), nullptr);
  platform.rank_speed.assign(plan.ranks.size(), 0.0);
  if (detail::p2p_link(cluster)) platform.p2p_hosts.assign(plan.ranks.size(), nullptr);
  std::vector<std::pair<int, int>> aliases;
  detail::NodeFactory factory(cluster, place_ranks(cluster, plan, server_nodes, aliases), platform);
  const auto share_hosts = [&] {
    for (const auto& [rank, first] : aliases) {
      platform.rank_hosts[rank] = platform.rank_hosts[first];
      platform.rank_speed[rank] = platform.rank_speed[first];
      if (!platform.p2p_hosts.empty()) platform.p2p_hosts[rank] = platform.p2p_hosts[first];
    }
  };

  // The fabric is built under a zone apart from the root and attached when whole: SimGrid 3.32's name checks and
  // seals walk the root's tree, so built under the root a fabric of N nodes cost N^2 (3.3 s for 16,384 ranks,
  // docs/PERFORMANCE.md). The root ("dtsim") holds nothing else.
  simgrid::s4u::NetZone* root = simgrid::s4u::create_star_zone("dtsim");
  simgrid::s4u::NetZone* fabric = detail::detached_zone("platform", root);
  using Builder = std::function<detail::Fabric(detail::NodeFactory&, const ClusterSpec&, simgrid::s4u::NetZone*)>;
  Builder build;
  switch (cluster.topology.kind) {
    case TopologyKind::Star:
      // Server nodes are leaves of the star like any node.
      build = [server_nodes](detail::NodeFactory& f, const ClusterSpec& c, simgrid::s4u::NetZone* parent) {
        return detail::build_star(f, c, parent, server_nodes);
      };
      break;
    case TopologyKind::FatTree: build = detail::build_fat_tree; break;
    case TopologyKind::Torus: build = detail::build_torus; break;
    case TopologyKind::Dragonfly: build = detail::build_dragonfly; break;
  }
  if (server_nodes > 0 && cluster.topology.kind != TopologyKind::Star) {
    simgrid::s4u::NetZone* top = simgrid::s4u::create_star_zone("cluster");
    top->set_parent(fabric);
    detail::attach_servers(factory, cluster, top, build(factory, cluster, top), server_nodes);
  } else {
    build(factory, cluster, fabric);
  }
  fabric->set_parent(root);
  detail::add_shared_cores(root, cluster, plan, platform);
  root->seal();
  detail::install_calibration_factors(root, cluster, in_cache);
  share_hosts();
  return platform;
}

}  // namespace dtsim::sg
