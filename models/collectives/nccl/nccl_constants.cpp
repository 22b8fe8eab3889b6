// NCCL's per-architecture figures (nccl_constants.hpp): topo.h, topo.cc and search.cc at kNcclVersion.
#include "models/collectives/nccl/nccl_constants.hpp"

namespace dtsim::nccl {

namespace {

constexpr double kSpeedsIntra[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
constexpr double kSpeedsInter[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                   7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kSm90SpeedsIntra[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr double kSm90SpeedsInter[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                       15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kSm100SpeedsIntra[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr double kSm100SpeedsInter[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0,
                                        20.0, 17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

template <size_t N>
constexpr SpeedArray speeds(const double (&a)[N]) {
  return SpeedArray{a, static_cast<int>(N)};
}

}  // namespace

std::string_view algo_name(Algo a) {
  switch (a) {
    case Algo::Tree: return "tree";
    case Algo::Ring: return "ring";
    case Algo::CollNetDirect: return "collnet_direct";
    case Algo::CollNetChain: return "collnet_chain";
    case Algo::Nvls: return "nvls";
    case Algo::NvlsTree: return "nvls_tree";
    case Algo::Pat: return "pat";
  }
  return "";
}

std::string_view proto_name(Proto p) {
  switch (p) {
    case Proto::LL: return "LL";
    case Proto::LL128: return "LL128";
    case Proto::Simple: return "Simple";
  }
  return "";
}

double nvlink_bw_per_link(int cc) {
  if (cc >= 100) return 40.1;  // SM100_NVLINK_BW
  if (cc >= 90) return 20.6;   // SM90_NVLINK_BW
  if (cc == 86) return 12.0;   // SM86_NVLINK_BW
  if (cc >= 80) return 20.0;   // SM80_NVLINK_BW
  if (cc >= 70) return 20.0;   // SM70_NVLINK_BW
  return 18.0;                 // SM60_NVLINK_BW
}

double pcie_bw(int generation, int lanes) {
  // kvDictPciGen: per-lane speed in units of 100 Mb/s (Gen1 15 ... Gen6 480); bw = width x speed / 80.
  int per_lane = 15;
  for (int g = 1; g < generation; ++g) per_lane *= 2;
  return lanes * per_lane / 80.0;
}

SpeedArray intra_speeds(Arch a) {
  if (a == Arch::Blackwell) return speeds(kSm100SpeedsIntra);
  if (a == Arch::Hopper) return speeds(kSm90SpeedsIntra);
  return speeds(kSpeedsIntra);
}

SpeedArray inter_speeds(Arch a) {
  if (a == Arch::Blackwell) return speeds(kSm100SpeedsInter);
  if (a == Arch::Hopper) return speeds(kSm90SpeedsInter);
  return speeds(kSpeedsInter);
}

Arch arch_of(int cc) {
  if (cc >= 100) return Arch::Blackwell;
  if (cc >= 90) return Arch::Hopper;
  if (cc >= 80) return Arch::Ampere;
  return Arch::Volta;
}

}  // namespace dtsim::nccl
