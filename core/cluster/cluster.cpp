// Hop counts of the inter-node topologies; the device and NIC profile of each node.
#include "core/cluster/cluster.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace dtsim {

std::string_view topology_name(TopologyKind k) {
  switch (k) {
    case TopologyKind::Star: return "star";
    case TopologyKind::FatTree: return "fat_tree";
    case TopologyKind::Torus: return "torus";
    case TopologyKind::Dragonfly: return "dragonfly";
  }
  return "?";
}

bool ClusterSpec::heterogeneous() const {
  for (int n = 0; n < nodes; ++n) {
    if (device_at(n).name != device.name || efficiency_at(n) != efficiency) return true;
  }
  return false;
}

std::string ClusterSpec::device_names() const {
  if (node_devices.empty()) return device.name;
  std::string out;
  for (size_t n = 0; n < node_devices.size();) {
    size_t run = n;
    while (run < node_devices.size() && node_devices[run].name == node_devices[n].name) ++run;
    out += (out.empty() ? "" : ",") + node_devices[n].name + ":" + std::to_string(run - n);
    n = run;
  }
  return out;
}

const Profile* ClusterSpec::nic_profile_of(int node) const {
  if (nic_profile.times.empty() || node < 0 || node >= nodes) return nullptr;
  const bool listed = nic_profile_nodes.empty() ||
                      std::find(nic_profile_nodes.begin(), nic_profile_nodes.end(), node) != nic_profile_nodes.end();
  return listed ? &nic_profile : nullptr;
}

int ClusterSpec::hops(int a, int b) const {
  if (a == b) return 0;
  switch (topology.kind) {
    case TopologyKind::Star: return 1;
    case TopologyKind::FatTree: {
      const int per = topology.nodes_per_switch > 0 ? topology.nodes_per_switch : nodes;
      return a / per == b / per ? 1 : 3;  // leaf; or leaf, spine, leaf
    }
    case TopologyKind::Torus: {
      int h = 0;
      for (int d : topology.dims) {
        const int da = a % d, db = b % d;
        const int diff = std::abs(da - db);
        h += std::min(diff, d - diff);
        a /= d;
        b /= d;
      }
      return h;
    }
    case TopologyKind::Dragonfly: {
      // Minimal routing with SimGrid's wiring: group i's global link to group j leaves from its
      // router j mod R and lands on group j's router i mod R (R routers per group). Across groups:
      // the source router, a local link to the router holding the global link if that is another
      // one, the landing router, a local link to the destination router if that is another one.
      const int per_router = topology.nodes_per_router;
      const int routers = topology.routers_per_group;
      if (per_router <= 0 || routers <= 0) return 1;
      const int ra = a / per_router, rb = b / per_router;  // global router indices
      if (ra == rb) return 1;
      const int ga = ra / routers, gb = rb / routers;
      if (ga == gb) return 2;
      return 2 + (ra % routers != gb % routers) + (rb % routers != ga % routers);
    }
  }
  return 1;
}

double ClusterSpec::intra_rate_for(double bytes) const {
  if (intra_busbw.empty()) return intra.rate;
  if (bytes <= intra_busbw.front().first) return intra_busbw.front().second;
  if (bytes >= intra_busbw.back().first) return intra_busbw.back().second;
  const auto hi = std::upper_bound(intra_busbw.begin(), intra_busbw.end(), bytes,
                                   [](double b, const std::pair<double, double>& p) { return b < p.first; });
  const auto lo = hi - 1;
  const double f = std::log(bytes / lo->first) / std::log(hi->first / lo->first);
  return lo->second + f * (hi->second - lo->second);
}

}  // namespace dtsim
