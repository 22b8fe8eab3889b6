// A ring's step inside one node (nccl_ring_step.hpp): the measured factors, one row per architecture.
#include "core/collectives/nccl/nccl_ring_step.hpp"

namespace dtsim::nccl {

// bench/collectives/ring_step_fit.md: each factor fitted on one curve and shown on another.
double ring_step_factor(Arch arch) {
  switch (arch) {
    case Arch::Volta: return 1.0;      // no measured curve
    case Arch::Ampere: return 4.44;    // Azure ND A100 v4, ring Simple; shown on its ring LL sizes
    case Arch::Hopper: return 2.52;    // Azure ND H100 v5, ring LL; shown on ND H200 v5
    case Arch::Blackwell: return 1.0;  // no measured curve
  }
  return 1.0;
}

double ring_step_extra_seconds(Arch arch, CollectiveKind kind, Proto proto, int ranks) {
  if (proto == Proto::LL128 || ranks < 2) return 0.0;
  int steps = 0;
  switch (kind) {
    case CollectiveKind::AllReduce: steps = 2 * (ranks - 1); break;
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter: steps = ranks - 1; break;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
    case CollectiveKind::AllToAll: return 0.0;
  }
  constexpr size_t kNvlink = 0;  // kHwLatency's NVLink row
  const double hw = kHwLatency[kNvlink][static_cast<size_t>(Algo::Ring)][static_cast<size_t>(proto)];
  return steps * (ring_step_factor(arch) - 1) * hw * 1e-6;
}

}  // namespace dtsim::nccl
