// Closed-form op costs, shared by both engines.
#include "models/cost/cost_model.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/calibration/calibration.hpp"
#include "models/collectives/nccl/nccl_cluster.hpp"
#include "models/compression/compressor.hpp"
#include "models/zoo/reread.hpp"

namespace dtsim::cost {

namespace {

// A group of the same shape small enough to inspect (at most `nodes` nodes), or the group itself
// when the algorithm cannot run the smaller one (e.g. not a power of two).
GroupShape reduced(const CollectiveAlgorithm& algo, CollectiveKind kind, const GroupShape& shape, int nodes) {
  GroupShape small{shape.per_node * std::min(shape.nodes(), nodes), shape.per_node, 0};
  return algo.supports(kind, small) ? small : shape;
}

}  // namespace

double inter_node_concurrency(const CollectiveAlgorithm& algo, CollectiveKind kind, const GroupShape& shape) {
  if (shape.nodes() <= 1) return 1;
  // The whole group while its phases stay small (a direct all-to-all's crossing depends on how many
  // nodes there are), else the same shape over 4 nodes.
  const GroupShape small =
      static_cast<double>(shape.size) * shape.size <= 65536 ? shape : reduced(algo, kind, shape, 4);
  // Phases hold distinct sender-receiver pairs; merged rounds use the same pairs. Each phase that
  // crosses nodes weighs by the bytes of its crossing flows (1.0 per unit of S).
  double weighted = 0, weight = 0;
  std::vector<int> leaving;  // by node: its ranks sending across in this phase
  for (const auto& phase : algo.flow_phases(kind, small, 1.0)) {
    leaving.assign(static_cast<size_t>(small.nodes()) + 1, 0);
    int most = 0;
    double bytes = 0;
    for (const auto& f : phase.flows) {
      if (small.same_node(f.src, f.dst)) continue;
      most = std::max(most, ++leaving[static_cast<size_t>(small.node_of(f.src))]);
      bytes = std::max(bytes, f.bytes);
    }
    weighted += bytes * most;
    weight += bytes;
  }
  return weight > 0 ? std::clamp(weighted / weight, 1.0, static_cast<double>(shape.per_node)) : 1.0;
}

int leaf_crossing_flows(const CollectiveAlgorithm& algo, CollectiveKind kind, const GroupShape& shape,
                        int nodes_per_leaf) {
  if (shape.nodes() <= nodes_per_leaf) return 0;
  const GroupShape small = reduced(algo, kind, shape, 2 * nodes_per_leaf);
  const int leaf_ranks = nodes_per_leaf * shape.per_node;
  int most = 0;
  for (const auto& phase : algo.flow_phases(kind, small, 1.0)) {
    int leaving = 0;
    for (const auto& f : phase.flows) {
      if (f.src < leaf_ranks && f.dst >= leaf_ranks) ++leaving;
    }
    most = std::max(most, leaving);
  }
  return most;
}

bool data_in_cache(const ClusterSpec& cluster, const Plan& plan) {
  if (!cluster.calibration || !cluster.calibration->has_in_cache_curves()) return false;
  std::map<int, double> by_node;
  for (const RankProgram& rank : plan.ranks) {
    for (const Op& op : rank.ops) {
      if (const auto* u = std::get_if<UpdateOp>(&op.body)) by_node[rank.where.node] += u->mem_bytes;
    }
  }
  const double cache = cluster.calibration->machine.llc_bytes;
  return std::all_of(by_node.begin(), by_node.end(), [&](const auto& node) { return node.second <= cache; });
}

CostModel::CostModel(const ClusterSpec& cluster, const Plan& plan)
    : cluster_(cluster), plan_(plan), in_cache_(data_in_cache(cluster, plan)) {
  for (const JobPlan& job : plan.jobs) {
    codec_kernels_.push_back(method_traits(job.compression.method).calibration_kernel);
  }
}

std::optional<double> CostModel::codec_time(const RankProgram& rank, const ComputeOp& op) const {
  if (!cluster_.calibration || op.codec == CodecStage::None || rank.job < 0 ||
      rank.job >= static_cast<int>(codec_kernels_.size())) {
    return std::nullopt;
  }
  const std::optional<double> t = cluster_.calibration->codec_time(codec_kernels_[rank.job], op.codec, op.kernel_bytes,
                                                                   op.decode_bytes, op.feedback_bytes, in_cache_);
  if (!t) return std::nullopt;
  return *t * plan_.jobs[rank.job].compression.cost_scale;
}

// A worker computes on its node's device (heterogeneous clusters: cluster.device_mix).
const DeviceSpec& CostModel::device_of(const RankProgram& rank) const {
  return rank.role == Role::Server ? cluster_.server_device : cluster_.device_at(rank.where.node);
}

double CostModel::efficiency_of(const RankProgram& rank) const {
  return rank.role == Role::Server ? cluster_.server_device.efficiency : cluster_.efficiency_at(rank.where.node);
}

double CostModel::compute_time(const RankProgram& rank, const ComputeOp& op) const {
  if (op.composite >= 0) return composite_timing(op.composite).duration;
  // A worker's kernel lasts at least the host's time to issue it (framework.kernel_launch), and an op of
  // host work its seconds.
  const double floor = std::max(op.host, rank.role == Role::Server ? 0.0 : framework_of(rank).kernel_launch);
  return std::max(floor, device_time(rank, op));
}

std::optional<CostModel::ComputeContext> CostModel::compute_context(const RankProgram& rank) const {
  if (cluster_.calibration) return std::nullopt;
  const FrameworkSpec& fw = framework_of(rank);
  return ComputeContext{device_of(rank), efficiency_of(rank), fw.kernel_launch, rank.role, fw.attention_backend};
}

const FrameworkSpec& CostModel::framework_of(const RankProgram& rank) const {
  static const FrameworkSpec none{};
  return rank.job >= 0 && rank.job < static_cast<int>(plan_.jobs.size())
             ? plan_.jobs[static_cast<size_t>(rank.job)].framework
             : none;
}

double CostModel::device_time(const RankProgram& rank, const ComputeOp& op) const {
  if (cluster_.calibration) {
    if (const std::optional<double> codec = codec_time(rank, op)) return *codec;
    // A server's compute is its aggregation, a streaming loop over the workers' gradients; a fused
    // attention kernel takes the profile's attention curve where a trace gave one.
    const CalibrationProfile& p = *cluster_.calibration;
    if (rank.role == Role::Server) return p.streaming_op_time(op.dtype, op.flops, op.mem_bytes, in_cache_);
    return op.cls == KernelClass::Attention ? p.attention_time(op.dtype, op.flops, op.mem_bytes, in_cache_)
                                            : p.compute_time(op.dtype, op.flops, op.mem_bytes, in_cache_);
  }
  const DeviceSpec& device = device_of(rank);
  return kernel_time(device, efficiency_of(rank), op.dtype, op.cls, op.flops,
                     op.mem_bytes + reread_memory_bytes(device, op.reread), op.gemm,
                     framework_of(rank).attention_backend);
}

const CompositeTiming& CostModel::composite_timing(int composite) const {
  if (composite_cache_.size() != plan_.composites.size()) composite_cache_.resize(plan_.composites.size());
  std::optional<CompositeTiming>& cached = composite_cache_[static_cast<size_t>(composite)];
  if (cached) return *cached;
  const Composite& seg = plan_.composites[static_cast<size_t>(composite)];
  const RankProgram& rank = plan_.ranks[static_cast<size_t>(seg.rank)];
  CompositeTiming t;
  // A part's length; a GEMM beside a collective holding `margin` SMs runs on the others.
  const int sms = device_of(rank).kernels.sms;
  const auto length = [&](const Op& part, int margin) {
    if (const auto* c = std::get_if<ComputeOp>(&part.body)) {
      const double slowed = margin > 0 && sms > margin ? static_cast<double>(sms) / (sms - margin) : 1.0;
      return compute_time(rank, *c) * slowed;
    }
    if (const auto* col = std::get_if<CollectiveOp>(&part.body)) {
      return collective_host_time(*col) + collective_time(*col);
    }
    throw RuntimeError(
        fmt::format("cost: a composite holds {} (only compute and collectives)", op_kind_name(part.body)));
  };
  // A part placed at `start`: a compute part's interval, or a collective's host work first and then its transfers
  // (communication, as in the engines). Returns its end.
  const auto place = [&](const Op& part, double start, int margin) {
    const double end = start + length(part, margin);
    if (const auto* col = std::get_if<CollectiveOp>(&part.body)) {
      t.comm.emplace_back(start + collective_host_time(*col), end);
      t.comm_kinds.push_back(group_kind_name(plan_.groups[static_cast<size_t>(col->group)].kind));
      t.comm_s += end - t.comm.back().first;
    } else {
      t.compute.emplace_back(start, end);
      t.compute_s += end - start;
    }
    return end;
  };
  auto beside = seg.beside.begin();
  for (size_t i = 0; i < seg.parts.size(); ++i) {
    if (beside != seg.beside.end() && beside->first == static_cast<int>(i) && i + 1 < seg.parts.size()) {
      // Side by side: the first starts with the pair, the second ends with it, a piece of the shorter unhidden.
      const double a = length(seg.parts[i], beside->sm_margin);
      const double b = length(seg.parts[i + 1], beside->sm_margin);
      const double pair = std::max(a, b) + std::min(a, b) / std::max(1, beside->chunks);
      place(seg.parts[i], t.duration, beside->sm_margin);
      place(seg.parts[i + 1], t.duration + pair - b, beside->sm_margin);
      t.duration += pair;
      ++beside;
      ++i;
      continue;
    }
    t.duration = place(seg.parts[i], t.duration, 0);
  }
  for (const auto& [a, b] : t.comm) {
    t.comm_exposed.push_back(b - a - intervals_overlap(t.compute, a, b));
    t.exposed_comm_s += t.comm_exposed.back();
  }
  cached = std::move(t);
  return *cached;
}

std::vector<CompositeTiming> CostModel::composite_timings() const {
  std::vector<CompositeTiming> all;
  all.reserve(plan_.composites.size());
  for (size_t i = 0; i < plan_.composites.size(); ++i) all.push_back(composite_timing(static_cast<int>(i)));
  return all;
}

double CostModel::update_time(const RankProgram& rank, const UpdateOp& op) const {
  if (cluster_.calibration) return cluster_.calibration->streaming_op_time(op.dtype, op.flops, op.mem_bytes, in_cache_);
  // An optimizer step streams the parameters, gradients and states (once fused; op by op unfused): memory-bound
  // kernels, each of which the host issues (framework.kernel_launch apiece, core/plan/optimizer_step.hpp).
  ComputeOp step{op.flops, op.mem_bytes, op.dtype};
  step.cls = KernelClass::Elementwise;
  step.host = rank.role == Role::Server ? 0.0 : op.launches * framework_of(rank).kernel_launch;
  return compute_time(rank, step);
}

double CostModel::collective_host_time(const CollectiveOp& op) const {
  const std::vector<int>& members = plan_.groups[static_cast<size_t>(op.group)].ranks;
  const double launch =
      members.empty() ? 0.0 : framework_of(plan_.ranks[static_cast<size_t>(members.front())]).collective_launch;
  return launch + (cluster_.calibration ? cluster_.calibration->collective_buffer_time(op.bytes) : 0.0);
}

double CostModel::send_host_time(const RankProgram& rank, const SendOp& op) const {
  if (!cluster_.calibration || rank.role != Role::Worker || rank.job < 0) return 0.0;
  if (plan_.jobs[rank.job].compression.method != CompressionMethod::None) return 0.0;
  return cluster_.calibration->push_buffer_time(op.bytes);
}

double CostModel::node_bandwidth(int node) const {
  return node >= cluster_.nodes ? cluster_.server_nic.rate : cluster_.node_bandwidth();
}

double CostModel::node_latency(int node) const {
  return node >= cluster_.nodes ? cluster_.server_nic.latency : cluster_.nic.latency;
}

AlphaBeta CostModel::group_alpha_beta(const CommGroup& group, const CollectiveAlgorithm& algo,
                                      CollectiveKind kind) const {
  const GroupShape shape{static_cast<int>(group.ranks.size()), group.per_node, 0};
  AlphaBeta ab;
  ab.alpha_intra = cluster_.intra.latency;
  ab.bw_intra = cluster_.intra.rate;
  // Latency across nodes: NIC latency plus the switch hops between consecutive nodes of the group.
  int hops = 1;
  int prev_node = -1;
  int first_node = -1;
  for (int r : group.ranks) {
    const int node = plan_.ranks[r].where.node;
    if (first_node < 0) first_node = node;
    if (prev_node >= 0 && node != prev_node) hops = std::max(hops, cluster_.hops(prev_node, node));
    prev_node = node;
  }
  ab.alpha_inter = cluster_.nic.latency + hops * cluster_.topology.switch_latency;
  const auto [concurrency, crossing] = traffic_shape(algo, kind, shape);
  double bw = cluster_.node_bandwidth() / (concurrency * std::max(1, group.siblings));
  const TopologySpec& t = cluster_.topology;
  if (t.kind == TopologyKind::FatTree && crossing > 0) {
    // A leaf's uplink (its nodes' bandwidth / oversubscription) shared by the flows leaving it.
    bw = std::min(bw, t.nodes_per_switch * cluster_.node_bandwidth() / t.oversubscription / crossing);
  }
  ab.bw_inter = bw;
  return ab;
}

std::pair<double, int> CostModel::traffic_shape(const CollectiveAlgorithm& algo, CollectiveKind kind,
                                                const GroupShape& shape) const {
  const auto key = std::make_tuple(&algo, kind, shape.size, shape.per_node);
  auto it = traffic_cache_.find(key);
  if (it == traffic_cache_.end()) {
    const TopologySpec& t = cluster_.topology;
    const int crossing = t.kind == TopologyKind::FatTree && t.nodes_per_switch > 0
                             ? leaf_crossing_flows(algo, kind, shape, t.nodes_per_switch)
                             : 0;
    it = traffic_cache_.emplace(key, std::make_pair(inter_node_concurrency(algo, kind, shape), crossing)).first;
  }
  return it->second;
}

double CostModel::collective_time(const CollectiveOp& op) const {
  const auto key = std::make_tuple(op.group, static_cast<int>(plan_.groups[op.group].ranks.size()), op.kind, op.bytes);
  const auto it = collective_cache_.find(key);
  if (it != collective_cache_.end()) return it->second;
  const CommGroup& group = plan_.groups[op.group];
  const CollectiveAlgorithm& algo = *op.algorithm;
  const GroupShape shape{static_cast<int>(group.ranks.size()), group.per_node, 0};
  double t = 0;
  if (shape.size > 1) {
    const std::optional<nccl::Choice> nccl = nccl_choice(op);
    t = nccl ? nccl->seconds : algo.closed_form(op.kind, shape, op.bytes, op_alpha_beta(op));
  }
  collective_cache_.emplace(key, t);
  return t;
}

std::optional<nccl::Choice> CostModel::nccl_choice(const CollectiveOp& op) const {
  if (!follows_nccl(*op.algorithm) || cluster_.calibration || !cluster_.intra_busbw.empty()) return std::nullopt;
  const CommGroup& group = plan_.groups[op.group];
  const int size = static_cast<int>(group.ranks.size());
  if (size <= 1) return nccl::Choice{};
  auto it = nccl_cache_.find({op.group, size});
  if (it == nccl_cache_.end()) {
    nccl::NodeTopology node = nccl::node_topology(cluster_, plan_.ranks[group.ranks.front()].where.node);
    // Sibling groups of one kind cross the node's NICs at once (CommGroup::siblings): each gets its share.
    const int siblings = std::max(1, group.siblings);
    if (siblings >= node.nics) {
      node.nic_bw *= static_cast<double>(node.nics) / siblings;
      node.nics = 1;
    } else {
      node.nics /= siblings;
    }
    const nccl::Communicator comm{size, std::max(1, size / std::max(1, group.per_node))};
    it = nccl_cache_.emplace(std::make_pair(op.group, size), nccl::Tuning(node, comm)).first;
  }
  return it->second.choose(op.kind, op.bytes);
}

std::optional<CostModel::NcclReplay> CostModel::nccl_replay(const CollectiveOp& op) const {
  const std::optional<nccl::Choice> nccl = nccl_choice(op);
  if (!nccl) return std::nullopt;
  const CommGroup& group = plan_.groups[op.group];
  const GroupShape shape{static_cast<int>(group.ranks.size()), group.per_node, 0};
  if (shape.size <= 1) return NcclReplay{};
  const AlphaBeta ab = op_alpha_beta(op);
  NcclReplay r;
  r.one_phase = op.kind == CollectiveKind::AllReduce || op.kind == CollectiveKind::ReduceScatter ||
                op.kind == CollectiveKind::AllGather;
  const double rounds_latency = op.algorithm->closed_form(op.kind, shape, 0.0, ab);
  const double hop = std::max(shape.per_node > 1 ? ab.alpha_intra : 0.0, shape.nodes() > 1 ? ab.alpha_inter : 0.0);
  const double flows_bandwidth = op.algorithm->closed_form(op.kind, shape, op.bytes, ab) - rounds_latency;
  r.stretch = flows_bandwidth > 0 ? (nccl->seconds - nccl->latency_seconds) / flows_bandwidth : 1.0;
  r.delay = std::max(0.0, nccl->latency_seconds - (r.one_phase ? hop : rounds_latency));
  return r;
}

AlphaBeta CostModel::op_alpha_beta(const CollectiveOp& op) const {
  const CommGroup& group = plan_.groups[op.group];
  AlphaBeta ab = group_alpha_beta(group, *op.algorithm, op.kind);
  if (busbw_applies()) ab.bw_intra = cluster_.intra_rate_for(op.bytes);  // the measured bus bandwidth at this size
  // The message a round sends: one chunk of the buffer (S / n for ring-like schedules).
  if (cluster_.calibration) apply_calibration(ab, op.bytes / std::max(1, static_cast<int>(group.ranks.size())));
  return ab;
}

bool CostModel::busbw_applies() const {
  return !cluster_.intra_busbw.empty() && (!cluster_.calibration || !cluster_.calibration->link(kSameHost));
}

double CostModel::collective_inter_bandwidth_time(const CollectiveOp& op) const {
  const CommGroup& group = plan_.groups[op.group];
  const GroupShape shape{static_cast<int>(group.ranks.size()), group.per_node, 0};
  if (shape.size <= 1) return 0.0;
  AlphaBeta unbounded = op_alpha_beta(op);
  unbounded.bw_inter = std::numeric_limits<double>::infinity();
  const double rest = op.algorithm->closed_form(op.kind, shape, op.bytes, unbounded);
  return std::max(0.0, collective_time(op) - rest);
}

void CostModel::apply_calibration(AlphaBeta& ab, double message_bytes) const {
  const CalibrationProfile& cal = *cluster_.calibration;
  if (const FittedCurve* same = cal.link(kSameHost, in_cache_)) {
    const Segment& s = same->fit.at(message_bytes);
    ab.alpha_intra = s.fixed;
    ab.bw_intra = 1.0 / s.per_unit;
  }
  if (const FittedCurve* cross = cal.link(kCrossHost)) {
    const Segment& s = cross->fit.at(message_bytes);
    ab.alpha_inter = s.fixed;
    ab.bw_inter *= 1.0 / s.per_unit / cluster_.node_bandwidth();
  }
}

TransferPath CostModel::path(const Placement& src, const Placement& dst, double bytes) const {
  AlphaBeta cal;
  if (cluster_.calibration) {
    cal = AlphaBeta{cluster_.intra.latency, cluster_.intra.rate, 0, node_bandwidth(src.node)};
    apply_calibration(cal, bytes);
  }
  if (src.node == dst.node) {
    if (const FittedCurve* p2p = cluster_.calibration ? cluster_.calibration->link(kSameHostP2p) : nullptr) {
      const Segment& s = p2p->fit.at(bytes);
      return TransferPath{Port{src.node, src.local, true}, Port{dst.node, dst.local, false}, s.fixed, 1.0 / s.per_unit,
                          1.0 / s.per_unit};
    }
    if (cluster_.calibration) {
      return TransferPath{Port{src.node, src.local, true}, Port{dst.node, dst.local, false}, cal.alpha_intra,
                          cal.bw_intra, cal.bw_intra};
    }
    return TransferPath{Port{src.node, src.local, true}, Port{dst.node, dst.local, false}, cluster_.intra.latency,
                        cluster_.intra.rate, cluster_.intra.rate};
  }
  if (cluster_.calibration && cluster_.calibration->link(kCrossHost)) {
    return TransferPath{Port{src.node, -1, true}, Port{dst.node, -1, false}, cal.alpha_inter, cal.bw_inter,
                        cal.bw_inter};
  }
  const bool server_hop = src.node >= cluster_.nodes || dst.node >= cluster_.nodes;
  const int hops = server_hop ? 1 : cluster_.hops(src.node, dst.node);
  // Half of each end's NIC latency, as the SimGrid platform splits it (sim/simgrid/node_zone.cpp): two
  // nodes are nic.latency apart, a server and a node (server_nic.latency + nic.latency) / 2.
  const double alpha = (node_latency(src.node) + node_latency(dst.node)) / 2 + hops * cluster_.topology.switch_latency;
  return TransferPath{Port{src.node, -1, true}, Port{dst.node, -1, false}, alpha, node_bandwidth(src.node),
                      node_bandwidth(dst.node)};
}

}  // namespace dtsim::cost
