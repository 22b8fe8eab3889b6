// An NVLink step of a ring or a tree, as the published curves time it.
//
// NCCL prices a ring or tree collective as base + steps x hw + S / bw (nccl_tuning.hpp): each step a chunk takes
// from one GPU to the next inside a node costs hw, NCCL's per-hop NVLink latency for the algorithm and protocol
// (graph.h's hwLat: ring LL 0.6 us, LL128 1.9, Simple 3.4; tree LL 0.6, LL128 1.25, Simple 4.0), and each step
// across nodes its network latency. The measured curves take longer per NVLink step: an LL or LL128 step's flag
// round trip and a Simple step's fence, post and poll across the NVSwitch cost k times NCCL's figure, one k per
// GPU architecture for every protocol. dtsim keeps NCCL's choice (it picks by its own estimate), its base latency,
// network steps and bandwidth, and adds to the pair NCCL picks, for each NVLink step, k x hw less what NCCL
// counted for it (across nodes NCCL counts a ring's step at no less than the network's per-step post overhead,
// and so does dtsim):
//   ring: 2 (n - 1) steps for AllReduce, n - 1 for AllGather and ReduceScatter, less the steps that cross nodes
//     (2 (nodes - 1) and nodes - 1); tree AllReduce: 2 (n / nodes - 1), the chain up and down each node.
//   Ampere, k = 4.44: fitted on Azure ND A100 v4's ring Simple sizes (one node, 32 MiB to 8 GiB, 3.7 / 12.5 % mean
//     / largest error); shown on the same curve's ring LL sizes (1 to 256 KiB), a protocol the fit did not see:
//     4.1 / 7.6 %, where NCCL's estimate is 2.7 times fast.
//   Hopper, k = 2.52: fitted on Azure ND H100 v5's ring LL sizes (one node, 1 to 32 KiB); shown on ND H200 v5's (1
//     to 512 KiB): 8.0 / 12.0 %, where NCCL's estimate is 1.9 times fast; and across nodes on the tree LL and
//     LL128 sizes of two-node curves no fit saw (docs/VALIDATION.md: Nebius's InfiniBand, 128 KiB to 2 MiB).
//   Volta and Blackwell: no measured curve, NCCL's own figure (k = 1).
// bench/collectives/ring_step_fit.py fits the factors on the one-node rings and writes their checks to
// ring_step_fit.md. Not applied: NVLS and NVLS Tree (nccl_pipeline.hpp times them), PAT, PCIe nodes, Broadcast
// and Reduce.
//
// To add a factor: its case in nvlink_step_factor (nccl_nvlink_step.cpp), fitted on a curve by ring_step_fit.py
// and shown on another; tests/models/collectives/nccl_tuning_test.cpp holds the factors to ring_step_fit.md.
#pragma once

#include "models/collectives/collective.hpp"
#include "models/collectives/nccl/nccl_constants.hpp"
#include "models/collectives/nccl/nccl_graph.hpp"

namespace dtsim::nccl {

// k for an architecture: an NVLink step's measured cost over NCCL's per-hop figure (1: none measured).
double nvlink_step_factor(Arch arch);

// The NVLink steps of one call of `kind` run as `algo` on `comm` (0 for algorithms this file does not price).
int nvlink_steps(CollectiveKind kind, Algo algo, const Communicator& comm);

// The seconds dtsim adds to NCCL's estimate of `kind` run as `algo` / `proto` on `comm` over NVLink nodes;
// `step_floor_us`: what NCCL counts a ring's step at, at least, across nodes (its per-step network overhead; 0 in
// one node and for trees).
double nvlink_step_extra_seconds(Arch arch, CollectiveKind kind, Algo algo, Proto proto, const Communicator& comm,
                                 double step_floor_us);

}  // namespace dtsim::nccl
