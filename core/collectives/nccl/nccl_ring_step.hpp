// A ring's step inside one node, as the published one-node curves time it.
//
// NCCL prices a ring collective of S bytes on n GPUs of one node as base + steps x hw + S / bw (nccl_tuning.hpp),
// hw its per-hop NVLink latency for the protocol (graph.h's hwLat: LL 0.6 us, LL128 1.9 us, Simple 3.4 us), steps
// 2 (n - 1) for AllReduce and n - 1 for AllGather and ReduceScatter. The measured curves take longer per step: an
// LL step's flag round trip and a Simple step's fence, post and poll across the NVSwitch cost k times NCCL's
// figure, one k per GPU architecture for LL and Simple alike. dtsim keeps NCCL's choice (it picks by its own
// estimate), its base latency and bandwidth, and adds steps x (k - 1) x hw to the pair NCCL picks:
//   Ampere, k = 4.44: fitted on Azure ND A100 v4's ring Simple sizes (32 MiB to 8 GiB, 3.7 / 12.5 % mean /
//     largest error); shown on the same curve's ring LL sizes (1 to 256 KiB), a protocol the fit did not see:
//     4.1 / 7.6 %, where NCCL's estimate is 2.7 times fast.
//   Hopper, k = 2.52: fitted on Azure ND H100 v5's ring LL sizes (1 to 32 KiB); shown on ND H200 v5's (1 to
//     512 KiB): 8.0 / 12.0 %, where NCCL's estimate is 1.9 times fast. Simple is assumed to scale as LL did on
//     Ampere (no one-node Hopper curve runs a ring Simple AllReduce: NCCL picks NVLS there).
//   Volta and Blackwell: no measured curve, NCCL's own figure (k = 1).
// bench/collectives/ring_step_fit.py fits the factors and writes their checks to ring_step_fit.md. Not applied:
// LL128 (the A100 curve's LL128 sizes fall short of NCCL's LL128 bandwidth, not of its latency: the error grows
// with the size, which no step factor mends), rings across nodes (no curve isolates their NVLink steps), PCIe
// nodes, Broadcast and Reduce.
//
// To add a factor: its case in ring_step_factor (nccl_ring_step.cpp), fitted on a curve by ring_step_fit.py and
// shown on another; tests/core/collectives/nccl_tuning_test.cpp holds the factors to ring_step_fit.md.
#pragma once

#include "core/collectives/collective.hpp"
#include "core/collectives/nccl/nccl_constants.hpp"

namespace dtsim::nccl {

// k for an architecture: a ring step's measured cost over NCCL's per-hop figure (1: none measured).
double ring_step_factor(Arch arch);

// The seconds dtsim adds to NCCL's estimate of a ring `kind` on `ranks` GPUs of one NVLink node run with `proto`
// (0 where it adds none, above).
double ring_step_extra_seconds(Arch arch, CollectiveKind kind, Proto proto, int ranks);

}  // namespace dtsim::nccl
