// NCCL's cost model (nccl_tuning.hpp): ncclTopoTuneModel, ncclTopoGetAlgoTime and topoGetAlgoInfo at kNcclVersion.
#include "models/collectives/nccl/nccl_tuning.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace dtsim::nccl {

namespace {

constexpr Algo kAllAlgos[] = {Algo::Tree,     Algo::Ring, Algo::CollNetDirect, Algo::CollNetChain, Algo::Nvls,
                              Algo::NvlsTree, Algo::Pat};
constexpr Proto kAllProtos[] = {Proto::LL, Proto::LL128, Proto::Simple};

size_t ix(Algo a) { return static_cast<size_t>(a); }
size_t ix(Proto p) { return static_cast<size_t>(p); }
size_t ix(Arch a) { return static_cast<size_t>(a); }

// The row of a collective in the tables; -1 for AllToAll (no row).
int row_of(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::AllReduce: return 0;
    case CollectiveKind::ReduceScatter: return 1;
    case CollectiveKind::AllGather: return 2;
    case CollectiveKind::Broadcast: return 3;
    case CollectiveKind::Reduce: return 4;
    case CollectiveKind::AllToAll: return -1;
  }
  return -1;
}

int log2_floor(double x) { return x < 1 ? -1 : static_cast<int>(std::floor(std::log2(x))); }

bool gathers(CollectiveKind k) { return k == CollectiveKind::AllGather || k == CollectiveKind::ReduceScatter; }

}  // namespace

Tuning::Tuning(const NodeTopology& node, const Communicator& comm)
    : node_(node),
      comm_(comm),
      graphs_(search_graphs(node, comm)),
      one_node_nvls_(search_graphs(node, Communicator{comm.per_node(), 1}).nvls),
      arch_(arch_of(node.compute_capability)) {
  comm_channels_ = std::min(64, 2 * graphs_.ring.channels);
  if (node.compute_capability >= 90 && comm.nodes > 1 && graphs_.ring.bw_intra > 45.0 && comm_channels_ < 16)
    comm_channels_ = std::min(64, 2 * comm_channels_);
  for (CollectiveKind k : {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter, CollectiveKind::AllGather,
                           CollectiveKind::Broadcast, CollectiveKind::Reduce})
    fill(k);
}

double Tuning::bandwidth(CollectiveKind kind, Algo a, Proto p) const {
  const int r = row_of(kind);
  return r < 0 ? 0.0 : bw_[static_cast<size_t>(r)][ix(a)][ix(p)];
}

double Tuning::latency(CollectiveKind kind, Algo a, Proto p) const {
  const int r = row_of(kind);
  return r < 0 ? 0.0 : lat_[static_cast<size_t>(r)][ix(a)][ix(p)];
}

void Tuning::fill(CollectiveKind kind) {
  const int n = comm_.ranks;
  const int nodes = comm_.nodes;
  const int r = row_of(kind);
  if (n <= 1 || r < 0) return;
  const double ppn = static_cast<double>(n) / nodes;
  const size_t i2 = nodes <= 2 ? static_cast<size_t>(nodes - 1) : 2;
  const size_t i1 = nodes == 1 ? ix(arch_) : node_.cpu == Cpu::Amd ? 1 : 0;
  const double ll_max = kLlMaxBw[i1][i2];
  const double ch_tree = kPerChMaxTreeBw[ix(arch_)][i2];
  const double ch_ring_ll128 = kPerChMaxRingLL128Bw[ix(arch_)][i2];
  const double ch_tree_ll128 = kPerChMaxTreeLL128Bw[ix(arch_)][i2];
  const double ch_nvls_tree = kPerChMaxNvlsTreeBw[ix(arch_)][i2];
  const bool ar = kind == CollectiveKind::AllReduce;
  const int steps = ar ? 2 * (n - 1) : gathers(kind) ? n - 1 : n;
  const size_t intra_hw = graphs_.nvlink ? 0 : 1;  // NCCL_HW_NVLINK, NCCL_HW_PCI
  const size_t hw = nodes == 1 ? intra_hw : 2;     // NCCL_HW_NET across nodes
  // Which pairs NCCL prices (ncclTopoTuneModel) and enables (its algoEnable/protoEnable defaults here).
  const bool nvls_support = arch_ >= Arch::Hopper && graphs_.nvls.channels >= 2;
  const bool ll128 = node_.compute_capability >= 70 && (graphs_.nvlink || comm_.per_node() == 1);
  const bool pat = node_.compute_capability >= 60 && nodes == n;
  auto& bw_row = bw_[static_cast<size_t>(r)];
  auto& lat_row = lat_[static_cast<size_t>(r)];
  for (Algo a : kAllAlgos) {
    if ((kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce) && a != Algo::Ring) continue;
    if (gathers(kind) && a != Algo::Pat && a != Algo::Ring && a != Algo::Nvls && a != Algo::CollNetDirect) continue;
    if (ar && a == Algo::Pat) continue;
    // Off as configured: CollNet (no SHARP plugin), NVLS across nodes (it needs CollNet), NVLS Tree in one node.
    if (a == Algo::CollNetDirect || a == Algo::CollNetChain) continue;
    if (a == Algo::Nvls && (nodes > 1 || !nvls_support)) continue;
    if (a == Algo::NvlsTree && (nodes == 1 || !nvls_support)) continue;
    if (a == Algo::Pat && !pat) continue;
    const Graph& g = a == Algo::Tree                            ? graphs_.tree
                     : (a == Algo::Nvls || a == Algo::NvlsTree) ? graphs_.nvls
                                                                : graphs_.ring;
    if (g.channels == 0) continue;
    for (Proto p : kAllProtos) {
      if ((a == Algo::Nvls || a == Algo::NvlsTree || a == Algo::Pat) && p != Proto::Simple) continue;
      if (p == Proto::LL128 && !ll128) continue;
      if (p == Proto::LL && !node_.stack.ll) continue;
      double bw = nodes <= 2 ? g.bw_intra : g.bw_inter;
      // NVLS: its busBw per channel, the NVLS stage at `bw_intra` (the graph's), bounded by the network.
      const auto nvls_bw = [&](double bw_intra) {
        double intra = bw_intra * kNvlsEfficiency[ix(arch_)] * (g.channels - 1) / g.channels;
        intra *= ar ? 2.0 : (ppn - 1) / ppn;
        const double inter = g.bw_inter * (nodes <= 2 && a == Algo::NvlsTree ? 2 : 1);
        return std::min({intra, inter, a == Algo::NvlsTree ? ch_nvls_tree : std::numeric_limits<double>::max()});
      };
      if (a == Algo::Nvls || a == Algo::NvlsTree) bw = nvls_bw(g.bw_intra);
      if (a == Algo::NvlsTree && ar) {
        nvls_tree_kernel_bw_ =
            g.channels * nvls_bw(one_node_nvls_.channels > 0 ? one_node_nvls_.bw_intra : g.bw_intra) * n / steps;
      }
      double bus = g.channels * bw;
      if (a == Algo::Ring && p == Proto::LL) bus = std::min(ll_max, bus * .5);
      if (a == Algo::Ring && p == Proto::LL128) bus = std::min(bus * 0.92, g.channels * ch_ring_ll128);
      if (a == Algo::Tree && ar) bus = std::min(bus * .92, g.channels * ch_tree);
      if (a == Algo::Tree && p == Proto::LL) bus = std::min(bus * 1.0 / 3.8, ll_max);
      if (a == Algo::Tree && p == Proto::LL128)
        bus = std::min(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), g.channels * ch_tree_ll128);
      if (a == Algo::Pat) bus *= .75;
      // Bus bandwidth to algorithm bandwidth.
      if (!(a != Algo::Ring && gathers(kind)))
        bus *= (a == Algo::Ring || a == Algo::Nvls || a == Algo::NvlsTree) ? static_cast<double>(n) / steps : .5;
      bw_row[ix(a)][ix(p)] = bus;

      double lat = kBaseLatency[ix(a)][ix(p)];
      double intra_lat = kHwLatency[intra_hw][ix(a)][ix(p)];
      // One rank per node exposes the whole network latency: the tree's.
      double inter_lat = ppn == 1 ? kHwLatency[2][ix(Algo::Tree)][ix(p)] : kHwLatency[2][ix(a)][ix(p)];
      // The plugin's declared latency (graph->latencyInter), once more for Simple's flush.
      inter_lat += node_.stack.declared_latency * (p == Proto::Simple ? 2 : 1);
      switch (a) {
        case Algo::Ring:
          if (kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce) {
            lat += kHwLatency[hw][ix(a)][ix(p)];  // the ring's channels are the same on every node
          } else {
            intra_lat = std::max(intra_lat, ring_step_floor(p));
            const int inter_steps = nodes == 1 ? 0 : ar ? 2 * (nodes - 1) : nodes - 1;
            lat += (steps - inter_steps) * intra_lat + inter_steps * inter_lat;
          }
          break;
        case Algo::Tree:
          if (ar) lat += 2 * ((ppn - 1) * intra_lat + log2_floor(nodes) * inter_lat);
          break;
        case Algo::Nvls: lat = intra_lat + (nodes > 1 ? inter_lat : 0); break;
        case Algo::NvlsTree: lat += intra_lat + 2 * log2_floor(nodes) * inter_lat; break;
        case Algo::Pat:
          if (gathers(kind)) lat += log2_floor(nodes) * (inter_lat / 3.5) + n * 2.8;
          break;
        case Algo::CollNetDirect:
        case Algo::CollNetChain: break;
      }
      lat_row[ix(a)][ix(p)] = lat;
    }
  }
}

Choice Tuning::priced(CollectiveKind kind, Algo a, Proto p, double bytes) const {
  double bw = bandwidth(kind, a, p);
  double lat = latency(kind, a, p);
  if (bw <= 0) return Choice{a, p, -1.0, 0.0, 0.0, -1.0};
  const int log_size = log2_floor(std::floor(bytes / 64));
  const bool ar = kind == CollectiveKind::AllReduce;
  if (a == Algo::Tree && ar && log_size >= 0 && log_size < 23)
    bw *= kTreeCorrection[ix(p)][static_cast<size_t>(log_size)];
  if (a == Algo::NvlsTree && ar && log_size >= 0 && log_size < 24 && arch_ >= Arch::Blackwell && node_.cpu != Cpu::Arm)
    bw *= kTreeCorrection[ix(p)][static_cast<size_t>(log_size)];
  if (a == Algo::Ring && p == Proto::Simple && comm_.nodes > 1 && ar &&
      bytes / (static_cast<double>(comm_channels_) * comm_.ranks) >= 64)
    lat *= node_.compute_capability < 80 ? kRingPlateauPreAmpere : kRingPlateau;
  const double seconds = (lat + bytes / (1000 * bw)) * 1e-6;
  return Choice{a, p, seconds, lat * 1e-6, 0.0, seconds};
}

Choice Tuning::choose(CollectiveKind kind, double bytes) const {
  if (comm_.ranks <= 1) return Choice{};
  if (kind == CollectiveKind::AllToAll) {
    const double seconds = alltoall_time(bytes);
    return Choice{Algo::Ring, Proto::Simple, seconds, alltoall_latency(), 0.0, seconds};
  }
  Choice best{Algo::Ring, Proto::Simple, std::numeric_limits<double>::max(),
              0.0,        0.0,           std::numeric_limits<double>::max()};
  for (Algo a : kAllAlgos) {
    for (Proto p : kAllProtos) {
      const Choice c = priced(kind, a, p, bytes);
      if (c.seconds >= 0 && c.seconds < best.seconds) best = c;
    }
  }
  if (best.algo == Algo::Nvls && nvls_in_one_node() && kind == CollectiveKind::AllReduce) {
    const CallTime run = nvls_one_node_allreduce(node_, comm_, bytes, graphs_.nvls.channels);
    best.seconds = run.seconds;
    best.latency_seconds = run.latency_seconds;
    return best;
  }
  if (best.algo == Algo::NvlsTree && kind == CollectiveKind::AllReduce && nvls_tree_kernel_bw_ > 0) {
    const double lat = latency(kind, best.algo, best.proto);
    best.seconds = (lat + bytes / (1000 * nvls_tree_kernel_bw_)) * 1e-6;
    best.latency_seconds = lat * 1e-6;
  }
  if (nvlink_steps_measured()) {
    const double floor = best.algo == Algo::Ring ? ring_step_floor(best.proto) : 0.0;
    const double extra = nvlink_step_extra_seconds(arch_, kind, best.algo, best.proto, comm_, floor);
    best.seconds += extra;
    best.latency_seconds += extra;
  }
  const double run_bw = best.algo == Algo::NvlsTree && kind == CollectiveKind::AllReduce && nvls_tree_kernel_bw_ > 0
                            ? nvls_tree_kernel_bw_
                            : bandwidth(kind, best.algo, best.proto);
  best.fill_seconds = pipeline_fill(node_, comm_, kind, best.algo, best.proto, bytes, run_bw, graphs_.nvls.channels);
  best.seconds += best.fill_seconds;
  best.latency_seconds += best.fill_seconds;
  return best;
}

double Tuning::ring_step_floor(Proto p) const {
  if (comm_.nodes <= 1) return 0.0;
  const double overhead = node_.cpu == Cpu::Amd ? kNetOverheadAmd : kNetOverheadIntel;
  return p == Proto::Simple ? 3 * overhead : overhead;
}

std::string Tuning::measured_terms() const {
  if (comm_.ranks <= 1) return "";
  std::vector<std::string> terms;
  if (nvlink_steps_measured()) {
    terms.push_back(
        fmt::format("rings' and trees' NVLink steps at {:.2f} x NCCL's per-hop latency", nvlink_step_factor(arch_)));
  }
  if (nvls_in_one_node()) terms.emplace_back("NVLS AllReduce by its kernel's chunks");
  if (nvls_tree_kernel_bw_ > bandwidth(CollectiveKind::AllReduce, Algo::NvlsTree, Proto::Simple) * (1 + 1e-9))
    terms.emplace_back("the NVLS tree's NVLink stage at the NVLink speed of one node's NVLS graph");
  if (graphs_.nvls.channels > 0 && nvls_tree_filled(node_, comm_)) terms.emplace_back("the NVLS tree's pipeline fill");
  return fmt::format("{}", fmt::join(terms, ", "));
}

double Tuning::alltoall_latency() const {
  const size_t hw = comm_.nodes > 1 ? 2 : graphs_.nvlink ? 0 : 1;
  return (kBaseLatency[ix(Algo::Ring)][ix(Proto::Simple)] + kHwLatency[hw][ix(Algo::Ring)][ix(Proto::Simple)]) * 1e-6;
}

double Tuning::alltoall_time(double bytes) const {
  const int n = comm_.ranks;
  if (n <= 1) return 0;
  const int g = comm_.per_node();
  const double link = graphs_.nvlink ? node_.nvlinks * node_.nvlink_bw : node_.gpu_pcie_bw;
  const double inside = g > 1 ? bytes * (g - 1) / n / (link * 1e9) : 0.0;
  const double across =
      comm_.nodes > 1 ? bytes * (n - g) / n / (node_.nics * std::min(node_.nic_bw, node_.gpu_pcie_bw) * 1e9 / g) : 0.0;
  const size_t hw = comm_.nodes > 1 ? 2 : graphs_.nvlink ? 0 : 1;
  const double lat =
      (kBaseLatency[ix(Algo::Ring)][ix(Proto::Simple)] + kHwLatency[hw][ix(Algo::Ring)][ix(Proto::Simple)]) * 1e-6;
  return lat + std::max(inside, across);
}

}  // namespace dtsim::nccl
