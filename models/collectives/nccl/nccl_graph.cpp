// NCCL's topology search in closed form (nccl_graph.hpp).
#include "models/collectives/nccl/nccl_graph.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim::nccl {

namespace {

// floor(a / b) with NCCL's float rounding tolerated (SUB_ROUND works to 1/1000 of a GB/s).
int fits(double a, double b) { return static_cast<int>(std::floor(a / b + 1e-3)); }

// The first speed not above `limit` whose c channels fit in `total` (0 when none does).
double first_speed(SpeedArray speeds, double limit, double total, int c) {
  for (int i = 0; i < speeds.count; ++i) {
    if (speeds.speeds[i] <= limit + 1e-6 && speeds.speeds[i] * c <= total + 1e-6) return speeds.speeds[i];
  }
  return 0;
}

// ncclTopoDupChannels.
Graph duplicated(Graph g, int cc) {
  if (g.channels == 0 || g.bw_intra < 25.0) return g;
  if (cc > 80 && g.bw_intra < 50.0 && g.channels > 4) return g;
  const int dup = std::min(g.channels * 2, kMaxRingChannels);
  const int split = (dup + g.channels - 1) / g.channels;
  g.bw_intra /= split;
  g.bw_inter /= split;
  g.channels = dup;
  return g;
}

// Pass 2 of the search for trees (search.cc: "increase bwIntra for trees"): from the ring's speed, bw_intra climbs
// the speed list, one speed at a time, while it is below twice bw_inter and the node's links carry the channels at
// the next speed: no path above P (`links`), channels x speed within T g / (g - 1) (a tree need not come back to
// its first GPU, so NCCL counts T x ndev / (ndev - 1) for it).
Graph raised_tree(Graph tree, SpeedArray speeds, double links, int g) {
  if (tree.channels == 0) return tree;
  const double total = g > 1 ? links * g / (g - 1) : links;
  int i = 0;
  while (i < speeds.count - 1 && speeds.speeds[i] > tree.bw_inter + 1e-6) ++i;
  while (i > 0 && tree.bw_intra < 2 * tree.bw_inter - 1e-6) {
    const double next = speeds.speeds[--i];
    if (next > links + 1e-6 || next * tree.channels > total + 1e-6) break;
    tree.bw_intra = next;
  }
  return tree;
}

}  // namespace

Graphs search_graphs(const NodeTopology& node, const Communicator& comm) {
  if (comm.ranks < 1 || comm.nodes < 1 || comm.ranks % comm.nodes != 0) {
    throw InputError(
        fmt::format("NCCL communicator of {} ranks on {} nodes: the ranks must split evenly over the nodes", comm.ranks,
                    comm.nodes));
  }
  const Arch arch = arch_of(node.compute_capability);
  const int g = comm.per_node();
  Graphs out;
  out.nvlink = node.nvlinks > 0 && g > 1;
  // P and T: a GPU's links (one GPU alone in its node: NCCL's LOC_BW, no limit).
  const double links = g == 1 ? 5000.0 : out.nvlink ? node.nvlinks * node.nvlink_bw : node.gpu_pcie_bw;
  const double net = std::min(node.gpu_pcie_bw, node.nic_bw);
  Graph ring;
  if (comm.nodes == 1) {
    const double s = first_speed(intra_speeds(arch), links, links, 1);
    if (s > 0) ring = Graph{std::min(kMaxRingChannels, fits(links, s)), s, s};
  } else if (node.nics > 0 && net > 0) {
    const double s = first_speed(inter_speeds(arch), net, links, 1);
    if (s > 0) {
      int channels = node.nics * fits(net, s);
      if (g > 1) channels = std::min(channels, fits(links * g, s * (g - 1)));
      ring = Graph{std::min(kMaxRingChannels, channels), s, s};
    }
  }
  out.ring = duplicated(ring, node.compute_capability);
  out.tree = raised_tree(out.ring, comm.nodes == 1 ? intra_speeds(arch) : inter_speeds(arch), links, g);
  if (arch >= Arch::Hopper && out.nvlink) {
    const int channels = std::min(kMaxNvlsChannels, g);
    const double total = links * g / (g - 1);
    if (comm.nodes == 1) {
      const double s = first_speed(intra_speeds(arch), links, total, channels);
      if (s > 0) out.nvls = Graph{channels, s, s};
    } else if (node.nics > 0 && net > 0) {
      const double s = first_speed(inter_speeds(arch), net, total, 1);
      if (s > 0) out.nvls = Graph{std::min(channels, node.nics * fits(net, s)), s, s};
    }
  }
  return out;
}

}  // namespace dtsim::nccl
