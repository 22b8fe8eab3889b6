// NCCL's cost model for one communicator (src/graph/tuning.cc at kNcclVersion: ncclTopoTuneModel fills a
// bandwidth and a latency per collective, algorithm and protocol; ncclTopoGetAlgoTime prices one call; enqueue.cc's
// topoGetAlgoInfo picks the pair of least time). dtsim computes what NCCL computes, on the graphs of
// nccl_graph.hpp, to predict both NCCL's choice and the call's time:
//   time = latency x (1.4 for a ring AllReduce with Simple across nodes once each rank's share of a channel
//          reaches 64 B) + bytes / bandwidth (x the tree correction for tree AllReduce),
// where `bytes` is the buffer S of collective.hpp (the gathered buffer for AllGather and ReduceScatter, as NCCL's
// ncclFuncMaxSendRecvCount). Bandwidths are algorithm bandwidths (bytes of S per second): for ring and NVLS
// AllReduce NCCL converts its bus bandwidth by nRanks / nSteps, for tree by 1/2.
// Assumed as NCCL's defaults run on the nodes dtsim describes: no CollNet (SHARP) plugin, so CollNet and NVLS
// across nodes are off; NVLS on where the GPUs are Hopper or later on an NVSwitch; balanced trees; LL128 where
// the GPUs of a node talk over NVLink (or are alone in their node) on Volta and later; PAT where each node holds
// one rank. AllToAll is not a collective of NCCL's cost model (it runs as grouped send/receive): alltoall_time
// gives dtsim's own model of it, written there.
#pragma once

#include <array>
#include <string>

#include "models/collectives/collective.hpp"
#include "models/collectives/nccl/nccl_graph.hpp"
#include "models/collectives/nccl/nccl_nvlink_step.hpp"
#include "models/collectives/nccl/nccl_pipeline.hpp"

namespace dtsim::nccl {

struct Choice {
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
  double seconds = 0;          // dtsim's time: nccl_seconds + fill_seconds (or the measured terms of choose)
  double latency_seconds = 0;  // the part of `seconds` that does not grow in proportion to the bytes (with the fill)
  double fill_seconds = 0;     // the chunk pipeline's fill NCCL's estimate leaves out (nccl_pipeline.hpp)
  double nccl_seconds = 0;     // NCCL's own estimate of the pair: what it picks by
};

class Tuning {
 public:
  Tuning(const NodeTopology& node, const Communicator& comm);

  // NCCL's comm->bandwidths (algorithm bandwidth, GB/s; 0: NCCL does not use the pair) and comm->latencies (us).
  // AllToAll has none (0).
  double bandwidth(CollectiveKind kind, Algo a, Proto p) const;
  double latency(CollectiveKind kind, Algo a, Proto p) const;
  // ncclTopoGetAlgoTime for one call of `bytes`: seconds, or a negative number where the pair is not used.
  double time(CollectiveKind kind, Algo a, Proto p, double bytes) const { return priced(kind, a, p, bytes).seconds; }
  // The pair NCCL picks (the least time, ties to the lower algorithm, then protocol, as its loops go) and its
  // time: NCCL's estimate plus the pipeline fill NCCL does not pick by, or, for NVLS AllReduce in one node, the
  // kernel's chunk pipeline (nccl_pipeline.hpp); a ring's or tree's NVLink steps as measured (nccl_nvlink_step.hpp);
  // one rank: Ring/Simple in no time. AllToAll: Ring/Simple with alltoall_time.
  Choice choose(CollectiveKind kind, double bytes) const;
  // What choose adds to NCCL's estimate on this communicator, in words ("" where nothing): `dtsim collectives`
  // prints it above its table.
  std::string measured_terms() const;
  // AllToAll of S = `bytes` per rank (S / ranks to each rank), as NCCL's grouped send/receive runs it: each rank's
  // bytes to other nodes leave through its node's NICs (PXN lets every GPU reach every rail), nics x nic_bw shared
  // by the node's ranks, while its bytes to its own node's ranks cross NVLink (or PCIe) at the GPU's link rate
  // (NCCL's per-link figure x links); the two run side by side, after one Simple step: the ring's base latency
  // and its hardware latency across nodes (else inside the node):
  //   t = lat + max(S (n - g) / n / (nics x min(nic_bw, PCIe) / g), S (g - 1) / n / link).
  double alltoall_time(double bytes) const;
  double alltoall_latency() const;  // its lat, seconds

  // NVLS Tree AllReduce's algorithm bandwidth as its kernel runs it (GB/s; 0 where NCCL prices no NVLS Tree), by
  // which choose times it: NCCL's formula, but its NVLS stage at the NVLink speed of the node's own NVLS graph (the
  // search of one node). NCCL's NVLS graph across nodes carries the NIC's speed as its bwIntra, so NCCL's estimate
  // prices the NVLink stage at a NIC's rate; where that binds (B200: 48 x 0.74 x 7/8 x 2 = 62 GB/s a channel, under
  // the network's 2 x 48 and the 96 ceiling) it is NCCL's guess, not what the NVLinks carry. On Hopper the
  // per-channel ceiling binds either way.
  double nvls_tree_kernel_bandwidth() const { return nvls_tree_kernel_bw_; }
  const Graphs& graphs() const { return graphs_; }
  const Communicator& communicator() const { return comm_; }

 private:
  static constexpr int kKinds = 5;  // AllReduce, ReduceScatter, AllGather, Broadcast, Reduce
  void fill(CollectiveKind kind);
  // ncclTopoGetAlgoTime with its latency part; seconds < 0 where the pair is not used.
  Choice priced(CollectiveKind kind, Algo a, Proto p, double bytes) const;
  // Where choose replaces or extends NCCL's estimate by a measured term (nccl_pipeline.hpp, nccl_nvlink_step.hpp).
  bool nvls_in_one_node() const { return comm_.nodes == 1 && graphs_.nvls.channels > 0; }
  bool nvlink_steps_measured() const { return graphs_.nvlink && nvlink_step_factor(arch_) != 1.0; }
  // getNetOverhead: the least NCCL counts a ring's step at across nodes (us; 0 in one node), three times for Simple.
  double ring_step_floor(Proto p) const;

  NodeTopology node_;
  Communicator comm_;
  Graphs graphs_;
  Graph one_node_nvls_;  // the NVLS graph NCCL finds on one node of these (its NVLink speed)
  Arch arch_;
  double nvls_tree_kernel_bw_ = 0;
  int comm_channels_ = 0;  // comm->nChannels: the ring's channels doubled (connect.cc, ncclTopoPostset)
  std::array<std::array<std::array<double, kProtos>, kAlgos>, kKinds> bw_{};
  std::array<std::array<std::array<double, kProtos>, kAlgos>, kKinds> lat_{};
};

}  // namespace dtsim::nccl
