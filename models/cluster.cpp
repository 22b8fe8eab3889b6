// Hop counts of the inter-node topologies.
#include "models/cluster.hpp"

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
      const int per_router = topology.nodes_per_router;
      const int per_group = per_router * topology.routers_per_group;
      if (per_router <= 0 || per_group <= 0) return 1;
      if (a / per_router == b / per_router) return 1;
      if (a / per_group == b / per_group) return 2;
      return 3;  // local router, global link, remote router (minimal routing)
    }
  }
  return 1;
}

}  // namespace dtsim
