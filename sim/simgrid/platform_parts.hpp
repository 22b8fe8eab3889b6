// Internals of the platform builder shared by its files: node zones, switch zones, and the
// builders of each inter-node topology. Only sim/simgrid/ includes this.
#pragma once

#include <map>
#include <optional>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "sim/simgrid/platform.hpp"

namespace dtsim::sg::detail {

namespace sg4 = simgrid::s4u;
using NetPoint = simgrid::kernel::routing::NetPoint;

// A host to create in a node: the plan rank it runs, its device index in the node, its FLOP/s.
struct RankHost {
  int rank = 0;
  int local = 0;
  double speed = 0;
  const Profile* speed_profile = nullptr;  // time-varying speed (factors of `speed`), or none
  std::vector<double> pstates;  // contention: factors of `speed` of the pstates after the first (contention.hpp)
};

// A zone as its parent routes to it: the zone, and the router inside it that traffic enters
// and leaves by (SimGrid resolves a route to a gateway only when the gateway lies in the
// child zone itself, never in an ancestor, hence switch zones below).
struct ZoneRef {
  sg4::NetZone* zone = nullptr;
  NetPoint* gateway = nullptr;
};

// cluster.calibration (calibrated_network.cpp): the base figures of the profile's same_host_p2p
// link, when it has one (then every rank gets a point-to-point endpoint on links of that class).
std::optional<LinkSpec> p2p_link(const ClusterSpec& cluster);

// dtsim profiles as SimGrid's host speed and link bandwidth profiles (profile_feeds.cpp): values are factor x scale
// (host speed profiles take factors of the peak, scale 1; link bandwidth profiles take bytes/s, scale = the rate, as
// measured on SimGrid 3.32 whatever Link.hpp says). One SimGrid profile per dtsim profile and scale, shared by every
// host or link that follows it, and fed to SimGrid a chunk of points at a time as simulated time reaches them: 16 B a
// point reached, once. Built from text (ProfileBuilder::from_string), a profile held 110 to 290 B a point for each host
// following it (docs/PERFORMANCE.md, "A profile on the SimGrid engine").
class ProfileFeeds {
 public:
  simgrid::kernel::profile::Profile* get(const Profile& p, double scale);

 private:
  std::map<std::pair<const Profile*, double>, simgrid::kernel::profile::Profile*> made_;
};

// Creates the zone of one node (a worker node, or a dedicated server node at index >= nodes).
class NodeFactory {
 public:
  NodeFactory(const ClusterSpec& cluster, std::vector<std::vector<RankHost>> hosts_at, Platform& platform)
      : cluster_(cluster), hosts_at_(std::move(hosts_at)), platform_(platform), p2p_(p2p_link(cluster)) {}

  // The zone "n<node>" under `parent`: its hosts, their intra-node links, the NIC and the
  // gateway router (with a same_host_p2p link, each host's point-to-point endpoint too). `switch_share` is added to the
  // NIC latency on each crossing: the half of the first (last) switch that topologies with switches apart from the
  // nodes fold in here.
  ZoneRef make(sg4::NetZone* parent, int node, double switch_share);

 private:
  const ClusterSpec& cluster_;
  std::vector<std::vector<RankHost>> hosts_at_;  // index: node
  Platform& platform_;
  std::optional<LinkSpec> p2p_;
  ProfileFeeds profiles_;
};

// An empty zone holding one router, as a leaf of the star zone `parent`: a switch that the zone
// above can use as the gateway of `parent` (whose nodes sit in zones of their own).
ZoneRef make_switch(sg4::NetZone* parent, const std::string& name);
// A star zone outside the platform's tree (no parent yet) that can hold zones and content: the root's models are set
// on it. SimGrid 3.32 checks every new host's and link's name by walking each zone under the root, and seals a zone by
// walking each host under the root: content built under this zone is outside both walks until it is attached.
sg4::NetZone* detached_zone(const std::string& name, const sg4::NetZone* root);

// Attaches `child` to the star zone `star` through the given links (none: a zero-latency leg).
void attach_to_star(sg4::NetZone* star, const ZoneRef& child, const std::vector<sg4::LinkInRoute>& links = {});

// The topology between the cluster's nodes. `parent` is nullptr when the topology zone is the
// root. Each builder appends the worker nodes' zones, in node order, to `nodes_out` and says how
// much of a switch it folded into each NIC crossing (`node_share`).
struct Fabric {
  sg4::NetZone* zone = nullptr;
  std::vector<ZoneRef> nodes;
  double node_share = 0;
};
// Star: also holds the dedicated server nodes (`extra` of them, after the cluster's nodes).
Fabric build_star(NodeFactory& factory, const ClusterSpec& cluster, sg4::NetZone* parent, int extra);
Fabric build_fat_tree(NodeFactory& factory, const ClusterSpec& cluster, sg4::NetZone* parent);
Fabric build_torus(NodeFactory& factory, const ClusterSpec& cluster, sg4::NetZone* parent);
Fabric build_dragonfly(NodeFactory& factory, const ClusterSpec& cluster, sg4::NetZone* parent);

// Dedicated server nodes of a fat-tree, torus or dragonfly: `count` nodes from index
// `cluster.nodes`, leaves of the star zone `top` beside the fabric, one switch away from every
// node through bypass routes.
void attach_servers(NodeFactory& factory, const ClusterSpec& cluster, sg4::NetZone* top, const Fabric& fabric,
                    int count);

// cluster.calibration (calibrated_network.cpp): the cluster with the profile's base link figures,
// and SimGrid's latency and bandwidth factor callbacks that apply its segments by message size.
// `in_cache`: the plan's data stays in cache (cost::data_in_cache), so same_host takes its _in_cache curve.
ClusterSpec calibrated_cluster(const ClusterSpec& cluster, bool in_cache);
void install_calibration_factors(sg4::NetZone* root, const ClusterSpec& cluster, bool in_cache);

// Ranks sharing cores (shared_cores(), shared_cores.cpp): one host per core in a zone "cores" under
// `root` (no links: only computation runs there), each rank's compute host and speed. Throws
// InputError when such a rank has a speed profile. Call before `root` is sealed.
void add_shared_cores(sg4::NetZone* root, const ClusterSpec& cluster, const Plan& plan, Platform& platform);

}  // namespace dtsim::sg::detail
