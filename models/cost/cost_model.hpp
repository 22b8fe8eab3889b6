// Closed-form costs of Plan ops on a cluster: roofline compute, alpha-beta collectives, and
// the link parameters of point-to-point transfers. The analytical engine's whole physics (the
// SimGrid engine takes its compute times from here too). With cluster.calibration, compute times
// are the profile's fitted curve (updates and a server's aggregation: at least its memory curve)
// and link parameters its fitted segments; compress and decompress ops of a method whose kernel it
// measured take the kernel's curve (docs/calibration.md).
#pragma once

#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/plan/plan.hpp"
#include "core/run/composite_timing.hpp"
#include "models/collectives/nccl/nccl_tuning.hpp"

namespace dtsim::cost {

// One direction of a port that a transfer occupies: a node's NICs or a device's intra-node link.
struct Port {
  int node = 0;
  int local = -1;  // -1: the node's NICs; else the device's intra-node link
  bool egress = true;
  auto operator<=>(const Port&) const = default;
};

struct TransferPath {
  Port from;
  Port to;
  double alpha = 0;    // latency
  double from_bw = 1;  // bytes/s of the sending port
  double to_bw = 1;    // bytes/s of the receiving port
};

// Whether the plan's ranks keep their data in the last-level cache of the calibrated hosts, so that the profile's
// _in_cache curves apply (core/calibration/calibration.hpp: kInCacheSuffix): a cluster.calibration that has them and
// knows its cache (machine.llc_bytes), and on every node the update ops of its ranks together reading and writing
// no more than that cache holds (UpdateOp::mem_bytes: the parameters, gradients and optimizer states, the written
// ones twice; the cpu backend's GEMM operands, a few MB, are left out). One answer for the whole plan, which both
// engines take: a 1M-parameter model on 2 ranks (12 MB a rank, 24 of a 32 MB L3) in cache, a 4M one out.
bool data_in_cache(const ClusterSpec& cluster, const Plan& plan);

class CostModel {
 public:
  CostModel(const ClusterSpec& cluster, const Plan& plan);

  // The device's cost of the op's kernel class (models/zoo/kernel.hpp; for layer-table ops the roofline
  // max(flops / (peak(dtype) * efficiency), mem_bytes / memory bandwidth)). With a profile:
  // its curves; a compress or decompress op of a method whose kernel it measured: codec_time().
  // A worker's op lasts at least its job's framework.kernel_launch, and a host op (ComputeOp::host) its
  // seconds.
  double compute_time(const RankProgram& rank, const ComputeOp& op) const;
  // Everything compute_time() and update_time() of a rank's ops depend on beside the op itself:
  // two ranks (of two cost models) with equal contexts take equal times for equal ops, so a sweep's
  // points that change only the cluster's size or links can keep a program's compute times.
  // nullopt with cluster.calibration (its curves are not compared).
  struct ComputeContext {
    DeviceSpec device;
    double efficiency = 0;
    double kernel_launch = 0;
    Role role = Role::Worker;
    AttentionBackend attention = AttentionBackend::Flash2;
    bool operator==(const ComputeContext&) const = default;
  };
  std::optional<ComputeContext> compute_context(const RankProgram& rank) const;
  // A Composite's parts one after the other (core/plan/plan.hpp): compute parts at compute_time(),
  // collectives at their host work and closed form (the whole group there at once), two parts that
  // Composite::beside pairs side by side in max(a, b) + min(a, b) / chunks; cached. A composite op's
  // compute_time() is its duration.
  const CompositeTiming& composite_timing(int composite) const;
  std::vector<CompositeTiming> composite_timings() const;  // one per Plan::composites entry
  // A compress or decompress op timed by the profile's kernel curve (CalibrationProfile::codec_time)
  // times the job's compression.cost_scale; nullopt without cluster.calibration, for other ops and for unmeasured
  // kernels.
  std::optional<double> codec_time(const RankProgram& rank, const ComputeOp& op) const;
  double update_time(const RankProgram& rank, const UpdateOp& op) const;
  // Work a rank does around a collective outside the transfers: its job's framework.collective_launch,
  // plus (the cpu executor filling its input and checking its output) the profile's collective_buffer
  // curve with a calibration.
  double collective_host_time(const CollectiveOp& op) const;
  // Work a worker does before an uncompressed push (the cpu executor writing this iteration's
  // gradients into it), one push after the other on its posted stream: the profile's push_buffer
  // curve; 0 for servers, compressed pushes (their compress op writes the wire) and without it.
  double send_host_time(const RankProgram& rank, const SendOp& op) const;
  // The algorithm's closed form with the group's alpha-beta parameters; for strategy.allreduce.algorithm: nccl,
  // NCCL's time (nccl_choice).
  double collective_time(const CollectiveOp& op) const;
  // strategy.allreduce.algorithm: nccl, without a calibration profile or a measured
  // cluster.intra_node.collective_busbw (they override it): what NCCL picks and how long it takes by its own cost
  // model (models/collectives/nccl/) over the group's ranks and nodes, the node's NICs shared by the sibling groups
  // crossing them at once (nics / siblings of them, or one at nics / siblings of its rate); nullopt otherwise.
  std::optional<nccl::Choice> nccl_choice(const CollectiveOp& op) const;
  // How the SimGrid engine replays an nccl_choice so that on an idle fabric it takes NCCL's time. AllReduce,
  // ReduceScatter and AllGather: a ring's flows all in one phase (`one_phase`: each rank sends its neighbour every
  // round's bytes at once and pays one hop's latency, as NCCL's pipelined channels do, where a ring replayed round
  // by round pays 2(n-1) of them); the other kinds: the algorithm's own phases (a direct exchange's for AllToAll,
  // which NCCL runs as grouped sends and receives). The flows' bytes are multiplied by `stretch` and `delay`
  // seconds go before them: stretch = NCCL's bandwidth term / the flows' (the algorithm's closed form at S minus at
  // 0 bytes), delay = max(0, NCCL's latency - the flows' latency: one hop's alpha in one phase, else the closed
  // form at 0 bytes). nullopt where nccl_choice is.
  struct NcclReplay {
    double stretch = 1;
    double delay = 0;
    bool one_phase = false;
  };
  std::optional<NcclReplay> nccl_replay(const CollectiveOp& op) const;
  // The part of collective_time() that is the inter-node bandwidth term (the time minus the same
  // closed form with unbounded inter-node bandwidth): what NIC bandwidth profiles stretch.
  double collective_inter_bandwidth_time(const CollectiveOp& op) const;
  // The alpha-beta parameters the collective sees over its group (documented in docs/engines.md).
  AlphaBeta group_alpha_beta(const CommGroup& group, const CollectiveAlgorithm& algo, CollectiveKind kind) const;
  // group_alpha_beta for this collective's buffer: with cluster.intra_node.collective_busbw the
  // intra-node bandwidth measured at its size (busbw_applies), and a calibration's fitted segments.
  AlphaBeta op_alpha_beta(const CollectiveOp& op) const;
  // Whether collectives inside a node take cluster.intra_node.collective_busbw, in both engines: it is
  // given, and no calibration profile fitted this host's link (a profile's same_host link wins; one
  // without it, a single GPU's or one fitted to traces, leaves the measured curve in force).
  bool busbw_applies() const;
  // `bytes` picks the segment of a calibrated link (cluster.calibration); unused otherwise.
  TransferPath path(const Placement& src, const Placement& dst, double bytes = 0) const;

 private:
  const DeviceSpec& device_of(const RankProgram& rank) const;
  const FrameworkSpec& framework_of(const RankProgram& rank) const;
  // The op's kernel on the rank's device (or the profile's curves), before the framework's floor.
  double device_time(const RankProgram& rank, const ComputeOp& op) const;
  double efficiency_of(const RankProgram& rank) const;
  double node_bandwidth(int node) const;
  double node_latency(int node) const;
  // With cluster.calibration: the fitted same-host (intra) and, when measured, cross-host (inter)
  // latency and bandwidth for messages of `message_bytes`; the inter bandwidth keeps the share the
  // uncalibrated model gave (NIC concurrency, fat-tree uplinks).
  void apply_calibration(AlphaBeta& ab, double message_bytes) const;

  // (ranks of a node crossing its NICs at once, flows leaving a fat-tree leaf at once), cached.
  std::pair<double, int> traffic_shape(const CollectiveAlgorithm& algo, CollectiveKind kind,
                                       const GroupShape& shape) const;

  const ClusterSpec& cluster_;
  const Plan& plan_;
  bool in_cache_ = false;                        // data_in_cache(cluster_, plan_)
  std::vector<std::string_view> codec_kernels_;  // by job: its compressor's calibration kernel ("" when none)
  mutable std::map<std::tuple<const CollectiveAlgorithm*, CollectiveKind, int, int>, std::pair<double, int>>
      traffic_cache_;
  mutable std::map<std::tuple<int, int, CollectiveKind, double>, double> collective_cache_;
  mutable std::map<std::pair<int, int>, nccl::Tuning> nccl_cache_;  // by group and its size
  mutable std::vector<std::optional<CompositeTiming>> composite_cache_;
};

// How many of one node's ranks send across its NICs at once, read off the algorithm's own flow
// phases over the group (or one of the same shape on 4 nodes when the group is large): the mean
// over the phases that cross nodes, each weighed by the bytes its crossing flows carry, so that
// S / (B / concurrency) sums the phases' inter-node times (a direct all-to-all on 2 nodes of 4
// crosses with 1, 2, 3, 4, 3, 2, 1 ranks in its 7 rounds: 16 / 7; a ring with 1, halving-doubling's
// far rounds with every rank).
double inter_node_concurrency(const CollectiveAlgorithm& algo, CollectiveKind kind, const GroupShape& shape);
// How many flows leave the first fat-tree leaf (of `nodes_per_leaf` nodes) at once in the
// busiest round, over a group of the same shape (at most two leaves); 0 if one leaf holds it all.
int leaf_crossing_flows(const CollectiveAlgorithm& algo, CollectiveKind kind, const GroupShape& shape,
                        int nodes_per_leaf);

}  // namespace dtsim::cost
