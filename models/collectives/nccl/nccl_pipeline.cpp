// The chunk pipeline's fill (nccl_pipeline.hpp): ncclNvlsTuning and calcCollChunking at kNcclVersion.
#include "models/collectives/nccl/nccl_pipeline.hpp"

#include <algorithm>
#include <cmath>

namespace dtsim::nccl {

NvlsTuning nvls_tuning(const NodeTopology& node, const Communicator& comm) {
  // NVLS_NCHANNELS_SM90 16; SM100: 32 across nodes, 24 in one node.
  NvlsTuning t;
  t.channels = node.compute_capability >= 100 ? (comm.nodes > 1 ? 32 : 24) : 16;
  int chunk = 0;
  int tree_max = 0;
  if (node.compute_capability >= 100 && comm.nodes > 1) {
    // ncclNvlsTreeSm100Tuning, with each NIC behind its GPU's PCIe switch (gpuToNicPathType <= PATH_PXB), as
    // nccl_graph.hpp's nodes are.
    const int ppn = comm.per_node();
    const double nic = node.nic_bw;
    chunk = 128 * 1024;
    if (comm.nodes == 2 && nic >= 48.0) {
      t.channels = 32;
      tree_max = 128 * 1024;
      if (ppn <= 4) {
        chunk = tree_max = 256 * 1024;
      } else if (ppn >= 16 || (ppn <= 8 && nic < 96.0)) {
        tree_max = 64 * 1024;
      }
    } else if (nic >= 96.0) {
      if (ppn <= 8) {
        t.channels = 24;
        chunk = tree_max = 256 * 1024;
      } else {
        t.channels = 32;
        tree_max = ppn < 32 ? 128 * 1024 : 64 * 1024;
      }
    } else if (nic >= 48.0) {
      t.channels = 24;
      tree_max = 64 * 1024;
    }
  }
  // The stack's NCCL_NVLS_CHUNKSIZE wins where it sets one (NCCL's default is 128 KiB).
  if (node.stack.nvls_chunk != 128 * 1024 || chunk == 0) chunk = node.stack.nvls_chunk;
  if (node.stack.nvls_tree_max_chunk != -2) {
    tree_max = node.stack.nvls_tree_max_chunk;
  } else if (tree_max == 0) {
    tree_max = comm.nodes >= 4 ? 64 * 1024 : chunk;
  }
  t.chunk = chunk;
  t.tree_max_chunk = tree_max;
  return t;
}

int nvls_tree_chunk(const NvlsTuning& t, double bytes, int pipes) {
  int chunk = std::min(t.chunk, t.tree_max_chunk);
  const double ops = pipes;
  if (bytes < 32 * ops * chunk && chunk > 262144) chunk = 262144;
  if (bytes < 16 * ops * chunk && chunk > 131072) chunk = 131072;
  if (bytes < 4 * ops * chunk && chunk > 65536) chunk = 65536;
  if (bytes < 1 * ops * chunk && chunk > 32768) chunk = 32768;
  return chunk;
}

int nvls_chunk(const NvlsTuning& t, double bytes, int pipes) {
  int chunk = t.chunk;
  const double ops = pipes;
  if (bytes < 64 * ops * chunk && chunk > 65536) chunk = 65536;
  if (bytes < 8 * ops * chunk && chunk > 32768) chunk = 32768;
  if (bytes < 2 * ops * chunk && chunk > 16384) chunk = 16384;
  return chunk;
}

CallTime nvls_one_node_allreduce(const NodeTopology& node, const Communicator& comm, double bytes, int nvls_heads,
                                 const NvlsOneNodeFit& fit) {
  const NvlsTuning t = nvls_tuning(node, comm);
  const int ops = t.channels * std::max(1, nvls_heads);
  const double chunk = nvls_chunk(t, bytes, ops);
  const double n = comm.ranks;
  const double bw = fit.link_efficiency * node.nvlinks * node.nvlink_bw * 1e9 * n / (n + 1);
  const double per_chunk = chunk * ops / bw + fit.chunk_seconds;
  constexpr double kStages = 3;  // scatter, reduce, gather
  CallTime c;
  c.latency_seconds = fit.launch_seconds + (kStages - 1) * per_chunk;
  c.seconds = c.latency_seconds + bytes / (ops * chunk) * per_chunk;
  return c;
}

bool nvls_tree_filled(const NodeTopology& node, const Communicator& comm) {
  return comm.nodes >= 2 && arch_of(node.compute_capability) >= Arch::Hopper;
}

double pipeline_fill(const NodeTopology& node, const Communicator& comm, CollectiveKind kind, Algo a, Proto p,
                     double bytes, double bw, int nvls_heads) {
  if (bw <= 0 || p != Proto::Simple) return 0.0;
  if (a != Algo::NvlsTree || kind != CollectiveKind::AllReduce || nvls_heads < 1) return 0.0;
  if (!nvls_tree_filled(node, comm)) return 0.0;
  const NvlsTuning t = nvls_tuning(node, comm);
  const int pipes = t.channels * nvls_heads;
  const int chunk = nvls_tree_chunk(t, bytes, pipes);
  const int stages = 1 + 2 * static_cast<int>(std::floor(std::log2(comm.nodes)));
  const double tau = static_cast<double>(chunk) * pipes / (bw * 1e9);
  return (stages - 1) * tau;
}

}  // namespace dtsim::nccl
