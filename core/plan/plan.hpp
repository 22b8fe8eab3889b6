// The Plan: what every rank does in one iteration, independent of the engine that runs it.
// Executors (analytical, SimGrid, CPU/MPI, CUDA/NCCL) all run the same Plan.
#pragma once

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/base/dtype.hpp"
#include "core/base/profile.hpp"
#include "core/scenario/framework.hpp"
#include "models/collectives/collective.hpp"
#include "models/compression/compressor.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/memory.hpp"
#include "models/zoo/kernel.hpp"
#include "models/zoo/reread.hpp"

namespace dtsim {

// Compute and Comm are FIFO streams (as CUDA streams): their ops run one at a time in program
// order. Posted ops run as soon as their deps allow (MPI nonblocking semantics), e.g. a
// parameter server receiving from every worker at once.
enum class Stream { Compute = 0, Comm = 1, Posted = 2 };
enum class Role { Worker, Server };
// What an op is for: drives the metrics breakdown and the trace colours. Compression: a gradient
// compressor's compress, orthogonalise or decompress work (ComputeOps, costed like any other).
// Recompute: a forward run again before its backward (activation recomputation, hybrid plans).
// Framework: host work outside the kernels (framework.iteration_overhead).
enum class Phase { Forward, Backward, Communication, Aggregate, Optimizer, Compression, Recompute, Framework };

struct ComputeOp {
  double flops = 0;
  double mem_bytes = 0;  // bytes read and written (roofline)
  Dtype dtype = Dtype::Fp32;
  // A compressor's compress or decompress step (Phase::Compression): with a calibration profile that
  // measured the job's method, timed by the kernel's curve instead (CodecTiming in compressor.hpp).
  CodecStage codec = CodecStage::None;
  double kernel_bytes = 0;
  double decode_bytes = 0;
  double feedback_bytes = 0;
  // What kind of kernel it is (models/zoo/kernel.hpp): layer-table ops are Layer; a transformer plan's
  // kernels say their class, and its GEMMs their shape.
  KernelClass cls = KernelClass::Layer;
  GemmShape gemm{};
  Reread reread{};  // a two-pass row kernel's second read (models/zoo/reread.hpp): the cost model adds what misses L2
  // A Composite standing for its parts (Plan::composites), or -1. Its flops and mem_bytes are the parts' sums.
  int composite = -1;
  // Host work the op stands for (framework.iteration_overhead): it lasts at least this many seconds.
  double host = 0;
};
struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::AllReduce;
  double bytes = 0;                                // S as collective.hpp defines it
  int group = 0;                                   // index into Plan::groups
  const CollectiveAlgorithm* algorithm = nullptr;  // from the table in models/collectives/
  int seq = 0;  // the n-th collective of this group in an iteration: ranks match on (group, seq)
};
struct SendOp {
  int peer = 0;
  double bytes = 0;
  int tag = 0;  // a Send matches the Recv on the peer with the same tag
};
struct RecvOp {
  int peer = 0;
  double bytes = 0;
  int tag = 0;
};
struct UpdateOp {
  double params = 0;  // parameters updated
  double flops = 0;
  double mem_bytes = 0;
  Dtype dtype = Dtype::Fp32;
  double launches = 1;  // kernels the host issues for it (core/plan/optimizer_step.hpp)
};

// Stale-synchronous gate: passes once every worker of `job` has reached its own gate of an
// iteration at least (this iteration - lag). lag = 0 is a barrier of the job's workers.
struct GateOp {
  int job = 0;
  int lag = 0;
};

// Backup workers: passes, in each iteration, once `needed` of the job's workers have reached it.
// A worker that has not reached it by then abandons its compute ops before it in program order:
// the one running ends at that moment, the others end the moment they are ready, without work.
struct QuorumOp {
  int job = 0;
  int needed = 0;
};

// Gossip (AD-PSGD): sends `bytes` to this rank's peer of the iteration (Plan::gossip_peer) and
// receives as many back. The peer's communication thread serves it: the peer's program takes no part.
struct GossipOp {
  double bytes = 0;
};

using OpBody = std::variant<ComputeOp, CollectiveOp, SendOp, RecvOp, UpdateOp, GateOp, QuorumOp, GossipOp>;

// Work that takes the rank's device: a compute op (layers, aggregation, compression) or an update.
inline bool is_compute(const OpBody& body) {
  return std::holds_alternative<ComputeOp>(body) || std::holds_alternative<UpdateOp>(body);
}

struct Op {
  int id = 0;  // index in the rank's program
  std::string label;
  Stream stream = Stream::Compute;
  Phase phase = Phase::Forward;
  int layer = -1;         // the workload layer it belongs to, or -1
  int micro_batch = -1;   // hybrid plans: the micro-batch it works on (pipeline timelines), or -1
  std::vector<int> deps;  // ops of the same rank and iteration that must end first
  OpBody body;
  // The op runs in iterations k with (k + 1) % period == 0 only (local SGD averages every H
  // steps); in the others it ends the moment it is ready, takes no time and leaves no record.
  int period = 1;
  bool runs_in(int iteration) const { return period <= 1 || (iteration + 1) % period == 0; }
};

// Ops one rank issues back to back on its compute stream, evaluated as one compute op (ComputeOp::composite):
// a hybrid plan's blocks under PlanDetail::Blocks, and under any detail a tensor-parallel collective with the GEMM
// it overlaps (TP communication overlap, models/parallel/transformer_ops.hpp). No op outside waits on a part, and in
// a symmetric run a part's collective finds its whole group there at once, so the composite lasts the sum of its
// parts' costs and its parts leave no gap, except where `beside` puts two parts side by side. Metrics take its
// compute and communication from the parts' costs (CompositeTiming in core/run/composite_timing.hpp). Parts'
// collectives are never matched (seq 0).
struct Composite {
  // Parts `first` and first + 1, a collective and a GEMM in either order, run side by side in `chunks` pipelined
  // pieces, the GEMM on all the device's SMs but `sm_margin` (its time x S / (S - margin)): together they last
  // max(a, b) + min(a, b) / chunks, the first starting with the pair, the second ending with it
  // (cost::CostModel::composite_timing).
  struct Beside {
    int first = 0;
    int chunks = 1;
    int sm_margin = 0;
    bool operator==(const Beside&) const = default;
  };
  int rank = 0;
  std::vector<Op> parts;
  std::vector<Beside> beside;  // by first, ascending, pairs disjoint
};

// One rank's ops for one iteration, shared copy-on-write between ranks that run the same (every
// worker of a data-parallel job runs the same program: 65,536 ranks hold one copy, not 65,536).
// Reading is const; push_back and edit() detach a shared program first, so a rank that changes its
// ops (the real backends shrinking a plan to the ranks launched, a test) never changes another's.
class Program {
 public:
  Program() = default;
  Program(std::vector<Op> ops) : ops_(std::make_shared<std::vector<Op>>(std::move(ops))) {}
  size_t size() const { return ops_ ? ops_->size() : 0; }
  bool empty() const { return size() == 0; }
  const Op& operator[](size_t i) const { return (*ops_)[i]; }
  const Op& at(size_t i) const { return ops().at(i); }
  const Op& front() const { return ops_->front(); }
  const Op& back() const { return ops_->back(); }
  std::vector<Op>::const_iterator begin() const { return ops().begin(); }
  std::vector<Op>::const_iterator end() const { return ops().end(); }
  const std::vector<Op>& ops() const;
  // The ops to change: this program's own copy (made now if another rank shares it).
  std::vector<Op>& edit();
  void push_back(Op op) { edit().push_back(std::move(op)); }
  void reserve(size_t n) { edit().reserve(n); }
  // Whether two programs are one shared copy (not merely equal).
  bool shares(const Program& other) const { return ops_ && ops_ == other.ops_; }

 private:
  std::shared_ptr<std::vector<Op>> ops_;
};

struct Placement {
  int node = 0;   // node index; dedicated server hosts come after the cluster's nodes
  int local = 0;  // device index within the node
};

struct RankProgram {
  int rank = 0;
  int job = 0;      // index into Plan::jobs
  int shard = -1;   // a server rank's shard
  int serves = -1;  // an asynchronous server rank's worker (one such rank per shard and worker)
  Role role = Role::Worker;
  Placement where;
  int stage = -1;  // hybrid plans: the rank's pipeline stage (its lane in pipeline timelines), or -1
  // A plan of representatives (PlanScope::Representatives): the ranks on this rank's node whose
  // timeline this one stands for, itself included; their messages cross the node's NICs with its own.
  int mirrored = 1;
  Program ops;  // one iteration, in issue order (each stream runs its ops in this order)
};

struct CommGroup {
  std::vector<int> ranks;  // global ranks; group rank i is ranks[i]
  int per_node = 1;        // consecutive group ranks per node
  // What the group is for: data-parallel jobs have one data group; hybrid plans one group per
  // tensor, context, expert, data, expert-data and pipeline (tied embeddings) group of ranks.
  GroupKind kind = GroupKind::Data;
  // Groups of the same kind that run their collectives in step with this one (a hybrid plan's
  // tensor groups all reduce at once) and have as many ranks on each of this group's nodes: they
  // share the nodes' NICs. The analytical engine divides a node's bandwidth among them all.
  int siblings = 1;
};

// One training job's share of the plan.
struct JobPlan {
  std::string name;
  std::vector<int> workers;  // global ranks
  std::vector<int> servers;  // global ranks of its parameter-server ranks (per shard, or per shard and worker)
  double samples_per_iteration = 0;
  bool asynchronous = false;  // ASP, SSP or gossip: workers' iterations drift apart
  int shards = 0;             // parameter-server shards
  // AllReduce jobs: gradient bytes of each unit exchanged as one (DDP bucket or layer), in
  // exchange order, and the compression applied (what a real backend needs to compress buffers).
  std::vector<double> unit_bytes{};
  CompressionSpec compression{};
  // Dynamic batch sizing: forward and backward compute of each worker scaled by its share of the
  // global batch (core/plan/batch_balance.hpp); samples_per_iteration is unchanged.
  bool dynamic_batch = false;
  // Hybrid jobs: the peak bytes a rank of each pipeline stage needs (models/parallel/memory.hpp) and
  // what the smallest of the job's devices holds; empty and 0 for other jobs.
  std::vector<StageMemory> memory{};
  double device_memory = 0;
  FrameworkSpec framework{};  // the job's framework costs (scenario.hpp), which the cost model adds
  // What the utilisation figures of metrics are made of (core/plan/job_flops.hpp); 0 where unknown (Chakra traces):
  // the model FLOPs of one sample (forward and backward, no recompute), the model FLOPs activation recompute adds in
  // one iteration over the job's workers, its tokens per sample (a transformer's sequence; 0 for other models), its
  // worker devices, and the sum of their peaks in the job's dtype.
  double model_flops_per_sample = 0;
  double recompute_flops_per_iteration = 0;
  double tokens_per_sample = 0;
  int devices = 0;
  double peak_flops = 0;
};

struct Plan {
  std::string name;
  std::vector<RankProgram> ranks;
  std::vector<CommGroup> groups;
  std::vector<JobPlan> jobs;
  std::vector<Composite> composites;  // what ComputeOp::composite refers to (PlanDetail::Blocks)
  int server_nodes = 0;               // dedicated server hosts (placed after the cluster's nodes)
  int iterations = 1;
  int warmup = 0;
  // Straggling: compute durations of rank r in iteration k are multiplied by slowdown[r][k]
  // (warm-up included); empty means 1 everywhere.
  std::vector<std::vector<double>> slowdown;
  // Gossip: gossip_peer[r][k] is the worker rank r averages its model with in iteration k (seeded).
  std::vector<std::vector<int>> gossip_peer;
  // Time-varying device speed: rank r's device runs at speed x profiles[rank_profile[r]].factor_at(t)
  // (-1: constant); empty rank_profile means none anywhere. NIC bandwidth profiles are the cluster's.
  std::vector<Profile> profiles;
  std::vector<int> rank_profile;
  // Dynamic batch sizing: each rank's share multiplier of forward and backward compute in the first
  // iteration (N x rate / sum of the job's rates, from device speeds and fixed slow factors); 1 for
  // ranks of jobs that do not balance; empty when no job does.
  std::vector<double> batch_scale;
  // What compiling noticed without refusing, one line each (a Chakra trace's node types and attributes
  // that dtsim does not model, core/plan/chakra/import.hpp); the commands print them.
  std::vector<std::string> warnings;
  // Ranks placed on the same device (an asynchronous server's per-worker ranks) compute one op
  // at a time, in the order they become ready.
  // BSP: a rank starts iteration k+1 when all its ops of iteration k have ended; the
  // collectives and the parameter server's pushes and pulls synchronise ranks with each other.

  int total_ops() const;
  double slowdown_of(int rank, int iteration) const { return slowdown.empty() ? 1.0 : slowdown[rank][iteration]; }
  const Profile* speed_profile_of(int rank) const {
    return rank_profile.empty() || rank_profile[rank] < 0 ? nullptr : &profiles[rank_profile[rank]];
  }
};

std::string_view phase_name(Phase p);
std::string_view op_kind_name(const OpBody& body);  // "compute", "allreduce", "send", "recv", "update", ...
double op_bytes(const OpBody& body);                // bytes communicated, 0 for compute
double op_flops(const OpBody& body);

}  // namespace dtsim
