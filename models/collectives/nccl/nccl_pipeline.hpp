// What NCCL's cost model leaves out where NCCL does not correct for it: the fill of the chunk pipeline.
//
// NCCL moves a collective's bytes in chunks, each channel (and, for NVLS patterns, each NVLS head of a channel)
// one pipe of its own; a chunk crosses the algorithm's stages one after the other, and with the Simple protocol a
// stage hands a chunk on only once it holds all of it (its step's tail moves per slice; LL and LL128 hand data on
// line by line, so they fill no pipeline worth counting). NCCL's model (nccl_tuning.hpp) prices a call as latency
// + bytes / bandwidth: the steady state, plus each stage's hardware latency once, not the time the first chunk
// takes to cross the stages before the last one starts. NCCL corrects trees for it (treeCorrectionFactor, by size),
// and NVLS Tree on Blackwell with x86 hosts in its estimate, which dtsim keeps for the pick only: it times NVLS Tree
// by the kernel's bandwidth (nccl_tuning.hpp, nvls_tree_kernel_bandwidth). A ring, closed on itself, fills nothing.
// Where dtsim's time has no correction, it adds the fill:
//   fill = (D - 1) x tau,   tau = chunk x pipes / bw,
// where bw is NCCL's algorithm bandwidth for the pair (bytes of the buffer per second), pipes the channels times
// heads that share it, D the stages a chunk crosses as NCCL's latency counts them, and chunk the size
// calcCollChunking (src/enqueue.cc at kNcclVersion) gives the call. NVLS Tree across nodes: D = 1 + 2 log2(nodes)
// (NCCL's latency: one NVLS stage, 2 log2(nodes) network stages up and down the tree); pipes = nvlsChannels (the
// CTAs, ncclNvlsTuning in src/transport/nvls.cc) x NVLS heads (the NVLS graph's channels); chunk: the smaller of
// NCCL_NVLS_CHUNKSIZE and the NVLS Tree ceiling, halved toward 32 KiB while the buffer is under 32, 16, 4 and 1
// times concurrentOps (= pipes) x chunk. Not modelled (NCCL's own correction stands, or the pattern fills
// nothing): rings, trees, LL and LL128, PAT.
//
// NVLS AllReduce in one node is timed as its kernel runs it, in place of NCCL's estimate (whose NVLS bandwidth
// is 17 % under what Hopper sustains and which has no term for the chunk size): src/device/all_reduce.h gives each
// of the nvlsChannels CTAs scatter, reduce and gather warps, three stages every chunk crosses, for each of the
// `heads` NVLS heads: ops = channels x heads concurrent pipes, each moving S / ops bytes in chunks of k, the
// NVLS chunk calcCollChunking picks (NCCL_NVLS_CHUNKSIZE, 128 KiB, halved to 64, 32 and 16 KiB while S is under
// 64, 8 and 2 times ops x chunk). A chunk costs its bytes at the pipe's share of B plus a fixed tau:
//   t = L + (S / (ops k) + 2) x (k ops / B + tau),   B = eta x nvlinks x nvlink_bw x n / (n + 1),
// B the algorithm bandwidth the GPU's NVLinks carry when each rank sends and receives S (n + 1) / n through the
// switch (its share reduced, then multicast). L, eta and tau are dtsim's, fitted by bench/collectives/nvls_fit.py
// on one measured curve (Azure ND H100 v5, bench/collectives/published/azure_nd_h100_v5_all_reduce_1n.csv) and
// shown on another (ND H200 v5) in bench/collectives/nvls_fit.md and docs/VALIDATION.md.
#pragma once

#include "models/collectives/collective.hpp"
#include "models/collectives/nccl/nccl_graph.hpp"

namespace dtsim::nccl {

// ncclNvlsTuning: the NVLS channels (CTAs) and chunk sizes NCCL settles on for the communicator.
struct NvlsTuning {
  int channels = 0;
  int chunk = 0;
  int tree_max_chunk = 0;
};
NvlsTuning nvls_tuning(const NodeTopology& node, const Communicator& comm);

// calcCollChunking's chunk for an NVLS Tree AllReduce of `bytes` over `pipes` concurrent operations.
int nvls_tree_chunk(const NvlsTuning& t, double bytes, int pipes);
// calcCollChunking's chunk for an NVLS AllReduce of `bytes` in one node over `pipes` concurrent operations.
int nvls_chunk(const NvlsTuning& t, double bytes, int pipes);

// A call's time as dtsim predicts it: seconds, and the part of them that does not grow with the bytes.
struct CallTime {
  double seconds = 0;
  double latency_seconds = 0;
};
// dtsim's fitted constants of the NVLS AllReduce in one node (above), one place.
struct NvlsOneNodeFit {
  double launch_seconds;   // L
  double link_efficiency;  // eta
  double chunk_seconds;    // tau
};
inline constexpr NvlsOneNodeFit kNvlsOneNodeFit{10.2e-6, 0.912, 4.71e-6};
// NVLS AllReduce of `bytes` in one node as its kernel runs it (above); `nvls_heads`: the NVLS graph's channels.
CallTime nvls_one_node_allreduce(const NodeTopology& node, const Communicator& comm, double bytes, int nvls_heads,
                                 const NvlsOneNodeFit& fit = kNvlsOneNodeFit);

// Whether dtsim adds the NVLS Tree fill on this communicator: across nodes, on the GPUs that have NVLS (Hopper on).
bool nvls_tree_filled(const NodeTopology& node, const Communicator& comm);

// The fill in seconds of `kind` of `bytes` run as (a, p), whose NCCL algorithm bandwidth is `bw` (GB/s); 0 where
// dtsim adds none (see above). `nvls_heads`: the NVLS graph's channels.
double pipeline_fill(const NodeTopology& node, const Communicator& comm, CollectiveKind kind, Algo a, Proto p,
                     double bytes, double bw, int nvls_heads);

}  // namespace dtsim::nccl
