// An NVLink step of a ring or a tree (nccl_nvlink_step.hpp): the measured factors, one row per architecture.
#include "models/collectives/nccl/nccl_nvlink_step.hpp"

#include <algorithm>

namespace dtsim::nccl {

// bench/collectives/ring_step_fit.md: each factor fitted on one curve and shown on another.
double nvlink_step_factor(Arch arch) {
  switch (arch) {
    case Arch::Volta: return 1.0;      // no measured curve
    case Arch::Ampere: return 4.44;    // Azure ND A100 v4, ring Simple; shown on its ring LL sizes
    case Arch::Hopper: return 2.52;    // Azure ND H100 v5, ring LL; shown on ND H200 v5
    case Arch::Blackwell: return 1.0;  // no measured curve
  }
  return 1.0;
}

int nvlink_steps(CollectiveKind kind, Algo algo, const Communicator& comm) {
  if (comm.ranks < 2 || comm.nodes < 1) return 0;
  const bool ar = kind == CollectiveKind::AllReduce;
  const bool gathers = kind == CollectiveKind::AllGather || kind == CollectiveKind::ReduceScatter;
  if (!ar && !gathers) return 0;  // Broadcast, Reduce, AllToAll
  switch (algo) {
    case Algo::Ring: {
      const int steps = ar ? 2 * (comm.ranks - 1) : comm.ranks - 1;
      const int across = ar ? 2 * (comm.nodes - 1) : comm.nodes - 1;
      return steps - across;
    }
    case Algo::Tree: return ar ? 2 * (comm.per_node() - 1) : 0;
    case Algo::CollNetDirect:
    case Algo::CollNetChain:
    case Algo::Nvls:
    case Algo::NvlsTree:
    case Algo::Pat: return 0;
  }
  return 0;
}

double nvlink_step_extra_seconds(Arch arch, CollectiveKind kind, Algo algo, Proto proto, const Communicator& comm,
                                 double step_floor_us) {
  const int steps = nvlink_steps(kind, algo, comm);
  if (steps <= 0) return 0.0;
  constexpr size_t kNvlink = 0;  // kHwLatency's NVLink row
  const double hw = kHwLatency[kNvlink][static_cast<size_t>(algo)][static_cast<size_t>(proto)];
  const double nccl_step = std::max(hw, step_floor_us);
  const double measured_step = std::max(nvlink_step_factor(arch) * hw, step_floor_us);
  return steps * (measured_step - nccl_step) * 1e-6;
}

}  // namespace dtsim::nccl
