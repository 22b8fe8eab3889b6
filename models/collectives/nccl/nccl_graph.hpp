// The channels NCCL's topology search finds (src/graph/search.cc, ncclTopoCompute and ncclTopoDupChannels at
// kNcclVersion), in closed form for the nodes dtsim describes: GPUs on one NVSwitch fabric (every GPU's NVLinks
// into the switch) or on PCIe, and NICs each behind a GPU's PCIe switch (rail-optimized, as DGX/HGX nodes are).
// NCCL searches these graphs by backtracking; on such symmetric nodes its result is the closed form below, which
// tests/models/collectives/nccl_tuning_test.cpp works by hand for DGX A100, DGX H100 and PCIe nodes.
//
// The search, as NCCL runs it and as dtsim writes it (all bandwidths in NCCL's GB/s):
//   P   the bandwidth of a path between two GPUs: NVLinks x NCCL's per-link figure through the switch, else the
//       GPU's PCIe link; T the bandwidth a GPU's links add up to (getTotalBw), the same here.
//   N   across nodes, the bandwidth of a GPU's path to its NIC: min(PCIe link, NIC port).
//   s   the channel speed: the first of the architecture's speeds (intra_speeds / inter_speeds) not above the
//       path's bandwidth (P in one node, N across nodes) and, for patterns that need c channels, c x s <= T.
//   Ring, one node: every GPU sends one channel out on its links, so floor(T / s) channels.
//   Ring, across nodes: each channel enters the node on one NIC and leaves on one, so nics x floor(N / s)
//       channels, and g - 1 of a node's g GPUs send each channel over NVLink, so at most floor(T g / (s (g - 1))).
//   Duplication (ncclTopoDupChannels): a ring or tree of speed s >= 25 is split into twice the channels at half the
//       speed (at most 32), except on Hopper and later when s < 50 and there are more than 4 channels.
//   Tree: the ring's channels and speed (NCCL searches trees for the ring's channel count); then, as NCCL's second
//       pass raises bwIntra for trees, bw_intra climbs the speed list while it is below 2 x bw_inter and each next
//       speed s' keeps s' <= P and channels x s' <= T g / (g - 1). It counts where NCCL prices a tree by bw_intra:
//       in one node and across two (2 x 8 A100 behind 4 x 100 Gb/s NICs: 4 channels of 12 GB/s across, 24 inside).
//   NVLS (Hopper and later, NVSwitch, 2 GPUs or more on the node): one channel per local GPU (at most 32); in one
//       node s is the first intra speed with g x s <= T g / (g - 1) (non-ring patterns get T x ndev / (ndev - 1));
//       across nodes the first inter speed within N, with min(g, nics x floor(N / s)) channels. Never duplicated.
#pragma once

#include "core/cluster/link_kinds.hpp"
#include "models/collectives/nccl/nccl_constants.hpp"

namespace dtsim::nccl {

enum class Cpu { Intel, Amd, Arm };

// One node as NCCL's topology detection sees it.
struct NodeTopology {
  int compute_capability = 80;  // 80 (A100), 90 (H100, H200), 100 (B200): NCCL's architecture and its tables
  int nvlinks = 0;              // NVLinks per GPU into the node's NVSwitch fabric; 0: the GPUs share PCIe only
  double nvlink_bw = 0;         // GB/s per NVLink as NCCL counts it (nvlink_bw_per_link)
  double gpu_pcie_bw = 24;      // GB/s of each GPU's PCIe link (pcie_bw), the NIC's path to its GPU
  int nics = 0;                 // NICs per node
  double nic_bw = 0;            // GB/s per NIC port (its rate in Gb/s / 8)
  Cpu cpu = Cpu::Intel;         // the host CPU (across nodes NCCL's LL ceiling and per-step overhead depend on it)
  NcclStack stack;              // what the NIC's network stack sets in NCCL (core/cluster/link_kinds.hpp)
};

// A communicator: `ranks` GPUs, `ranks / nodes` on each of `nodes` nodes.
struct Communicator {
  int ranks = 1;
  int nodes = 1;
  int per_node() const { return ranks / nodes; }
};

// One graph: channels of bw_intra inside a node and bw_inter across nodes (GB/s each).
struct Graph {
  int channels = 0;  // 0: NCCL finds no graph of this pattern (the algorithm is not used)
  double bw_intra = 0;
  double bw_inter = 0;
};

struct Graphs {
  Graph ring;
  Graph tree;
  Graph nvls;
  bool nvlink = false;  // the GPUs of a node reach each other over NVLink (NCCL's typeIntra LINK_NVL)
};

// Throws InputError when the communicator does not fit: ranks < 1, nodes < 1 or ranks % nodes != 0.
Graphs search_graphs(const NodeTopology& node, const Communicator& comm);

}  // namespace dtsim::nccl
