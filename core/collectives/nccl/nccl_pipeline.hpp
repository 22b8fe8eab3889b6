// What NCCL's cost model leaves out where NCCL does not correct for it: the fill of the chunk pipeline.
//
// NCCL moves a collective's bytes in chunks, each channel (and, for NVLS patterns, each NVLS head of a channel)
// one pipe of its own; a chunk crosses the algorithm's stages one after the other, and with the Simple protocol a
// stage hands a chunk on only once it holds all of it (its step's tail moves per slice; LL and LL128 hand data on
// line by line, so they fill no pipeline worth counting). NCCL's model (nccl_tuning.hpp) prices a call as latency
// + bytes / bandwidth: the steady state, plus each stage's hardware latency once, not the time the first chunk
// takes to cross the stages before the last one starts. NCCL corrects trees for it (treeCorrectionFactor, by size)
// and NVLS Tree on Blackwell with x86 hosts; a ring, closed on itself, fills nothing. Where it does not correct,
// dtsim adds the fill:
//   fill = (D - 1) x tau,   tau = chunk x pipes / bw,
// where bw is NCCL's algorithm bandwidth for the pair (bytes of the buffer per second), pipes the channels times
// heads that share it, D the stages a chunk crosses as NCCL's latency counts them, and chunk the size
// calcCollChunking (src/enqueue.cc at kNcclVersion) gives the call. NVLS Tree across nodes: D = 1 + 2 log2(nodes)
// (NCCL's latency: one NVLS stage, 2 log2(nodes) network stages up and down the tree); pipes = nvlsChannels (the
// CTAs, ncclNvlsTuning in src/transport/nvls.cc) x NVLS heads (the NVLS graph's channels); chunk: the smaller of
// NCCL_NVLS_CHUNKSIZE and the NVLS Tree ceiling, halved toward 32 KiB while the buffer is under 32, 16, 4 and 1
// times concurrentOps (= pipes) x chunk. Not modelled (NCCL's own correction stands, or the pattern fills
// nothing): rings, trees, NVLS in one node (one stage), LL and LL128, PAT.
#pragma once

#include "core/collectives/collective.hpp"
#include "core/collectives/nccl/nccl_graph.hpp"

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

// The fill in seconds of `kind` of `bytes` run as (a, p), whose NCCL algorithm bandwidth is `bw` (GB/s); 0 where
// dtsim adds none (see above). `nvls_heads`: the NVLS graph's channels.
double pipeline_fill(const NodeTopology& node, const Communicator& comm, CollectiveKind kind, Algo a, Proto p,
                     double bytes, double bw, int nvls_heads);

}  // namespace dtsim::nccl
