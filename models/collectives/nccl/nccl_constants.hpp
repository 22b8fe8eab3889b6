// NCCL's cost-model constants, as NCCL itself holds them. Every figure in this file is read from one NCCL
// release, named once here (kNcclVersion); dtsim's model of NCCL (nccl_graph.hpp, nccl_tuning.hpp) uses no other.
// To follow a newer NCCL: read the same tables at its commit, change them here and the version line, and run
// tests/models/collectives/nccl_tuning_test.cpp, whose hand-worked cases say which figure moved what.
//   src/graph/tuning.cc: ncclTunerConstantsDefaults (base and hardware latencies, LL and per-channel bandwidth
//     ceilings), nvlsEfficiency, treeCorrectionFactor, the ring plateau factor, NET overhead by CPU vendor.
//   src/graph/topo.h: NVLink bandwidth per link by compute capability; topo.cc: PCIe bandwidth by generation
//     (width x GT/s / 80 in GB/s) and NIC bandwidth (port speed in Mb/s / 8000).
//   src/graph/search.cc: the speeds the topology search tries, per architecture, inside a node and across nodes.
#pragma once

#include <array>
#include <string_view>

namespace dtsim::nccl {

inline constexpr std::string_view kNcclVersion = "NCCL 2.30.7 (NVIDIA/nccl @ 5067397c, 2026-06-11)";

// NCCL's algorithm, protocol and architecture indices, in NCCL's order (NCCL_ALGO_*, NCCL_PROTO_*,
// NCCL_*_COMPCAP_IDX).
enum class Algo { Tree, Ring, CollNetDirect, CollNetChain, Nvls, NvlsTree, Pat };
enum class Proto { LL, LL128, Simple };
enum class Arch { Volta, Ampere, Hopper, Blackwell };
inline constexpr int kAlgos = 7;
inline constexpr int kProtos = 3;

std::string_view algo_name(Algo a);    // "tree", "ring", "collnet_direct", ..., "nvls", "nvls_tree", "pat"
std::string_view proto_name(Proto p);  // "LL", "LL128", "Simple"

// The link classes NCCL's latencies are given for (NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET).
enum class Hw { NvLink, Pci, Net };

// Per [algo][proto], microseconds.
using AlgoProtoTable = std::array<std::array<double, kProtos>, kAlgos>;
// Per architecture (rows), then by node count: 1 node, 2 nodes, more (NCCL's index2).
using ArchNodesTable = std::array<std::array<double, 3>, 4>;

inline constexpr AlgoProtoTable kBaseLatency = {{
    {6.8, 14.0, 8.4},
    {6.6, 14.0, 8.4},  // Tree, Ring
    {0, 0, 0},
    {0, 0, 0},  // CollNet Direct, Chain
    {0, 0, 0},
    {0, 0, 0},        // NVLS, NVLS Tree
    {8.0, 8.0, 8.0},  // PAT
}};

inline constexpr std::array<AlgoProtoTable, 3> kHwLatency = {{
    {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}}},  // NVLink
    {{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}}},     // PCI
    {{{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}},    // NET
}};

// llMaxBws: the first row index is the architecture on one node; across nodes NCCL reads row 0 (Intel CPUs) or
// row 1 (AMD), whatever the GPU (tuning.cc's index1).
inline constexpr ArchNodesTable kLlMaxBw = {
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}}};
inline constexpr ArchNodesTable kPerChMaxRingLL128Bw = {
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}}};
inline constexpr ArchNodesTable kPerChMaxTreeLL128Bw = {
    {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
inline constexpr ArchNodesTable kPerChMaxTreeBw = {
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
inline constexpr ArchNodesTable kPerChMaxNvlsTreeBw = {
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}};
inline constexpr std::array<double, 4> kNvlsEfficiency = {0.0, 0.0, 0.85, 0.74};

// Trees do not follow the model at medium sizes: a factor on the tree's AllReduce bandwidth per protocol, by
// log2(bytes / 64) from 0 (64 B) to 23.
inline constexpr std::array<std::array<double, 24>, kProtos> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}};

// Ring AllReduce across nodes with Simple: latency times this once each rank's share of a channel reaches 64 B
// (the "plateau effect of ring"), 1.9 before Ampere.
inline constexpr double kRingPlateau = 1.4;
inline constexpr double kRingPlateauPreAmpere = 1.9;

// Network post overhead per step, microseconds (getNetOverhead): Intel CPUs 1, AMD 2; three times that with Simple.
inline constexpr double kNetOverheadIntel = 1.0;
inline constexpr double kNetOverheadAmd = 2.0;

// topo.h: GB/s per NVLink by compute capability (SM80 20, SM86 12, SM90 20.6, SM100 40.1; SM70 20, SM60 18).
double nvlink_bw_per_link(int compute_capability);
// topo.cc: a PCIe link's GB/s, lanes x (GT/s x 10) / 80 (Gen3 x16 12, Gen4 x16 24, Gen5 x16 48, Gen6 x16 96).
double pcie_bw(int generation, int lanes = 16);

// search.cc: the bandwidths per channel the topology search tries, highest first, inside one node
// (speedArrayIntra) and across nodes (speedArrayInter), per architecture (Volta and Ampere share one).
struct SpeedArray {
  const double* speeds;
  int count;
};
SpeedArray intra_speeds(Arch a);
SpeedArray inter_speeds(Arch a);

// NCCL's ring graph holds at most MAXCHANNELS / 2 channels; NVLS at most NCCL_MAX_NVLS_ARITY.
inline constexpr int kMaxRingChannels = 32;
inline constexpr int kMaxNvlsChannels = 32;

// The compute capability's architecture index (>= 100 Blackwell, >= 90 Hopper, >= 80 Ampere, else Volta).
Arch arch_of(int compute_capability);

}  // namespace dtsim::nccl
