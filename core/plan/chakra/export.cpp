// Plan -> Chakra traces. Node ids are op ids; a collective's pg_name is its group's index, and each
// rank's metadata describes the groups it belongs to (pg_ranks.<name>) and where it runs.
#include "core/plan/chakra/export.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/base/overloaded.hpp"
#include "core/plan/chakra/attrs.hpp"

namespace dtsim {
namespace {

namespace a = chakra_attr;

EtCommType comm_type(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::AllReduce: return EtCommType::AllReduce;
    case CollectiveKind::ReduceScatter: return EtCommType::ReduceScatter;
    case CollectiveKind::AllGather: return EtCommType::AllGather;
    case CollectiveKind::Broadcast: return EtCommType::Broadcast;
    case CollectiveKind::Reduce: return EtCommType::Reduce;
    case CollectiveKind::AllToAll: return EtCommType::AllToAll;
  }
  return EtCommType::AllReduce;
}

EtAttr num(std::string_view name, double v) {
  return EtAttr{std::string(name), static_cast<std::int64_t>(std::llround(v))};
}
EtAttr real(std::string_view name, double v) { return EtAttr{std::string(name), v}; }
EtAttr text(std::string_view name, std::string_view v) { return EtAttr{std::string(name), std::string(v)}; }

void add_compute(EtNode& n, const ComputeOp& c) {
  if (c.composite >= 0) throw RuntimeError("export-chakra: a plan of composites (compile it with every kernel an op)");
  n.type = static_cast<int>(EtNodeType::Compute);
  n.attrs.push_back(num(a::kNumOps, c.flops));
  n.attrs.push_back(num(a::kTensorSize, c.mem_bytes));
  n.attrs.push_back(text(a::kDtype, dtype_name(c.dtype)));
  n.attrs.push_back(text(a::kKernelClass, kernel_class_name(c.cls)));
  if (c.gemm.known()) {
    n.attrs.push_back(
        EtAttr{std::string(a::kGemm),
               std::vector<double>{c.gemm.m, c.gemm.n, c.gemm.k, c.gemm.batch, c.gemm.backward ? 1.0 : 0.0,
                                   c.gemm.causal ? 1.0 : 0.0, c.gemm.split_accumulate ? 1.0 : 0.0}});
  }
  if (c.reread.on()) {
    n.attrs.push_back(EtAttr{std::string(a::kReread), std::vector<double>{c.reread.row_bytes, c.reread.bytes}});
  }
  if (c.host > 0) n.attrs.push_back(real(a::kHost, c.host));
}

void add_update(EtNode& n, const UpdateOp& u) {
  n.type = static_cast<int>(EtNodeType::Compute);
  n.attrs.push_back(num(a::kNumOps, u.flops));
  n.attrs.push_back(num(a::kTensorSize, u.mem_bytes));
  n.attrs.push_back(text(a::kDtype, dtype_name(u.dtype)));
  n.attrs.push_back(real(a::kUpdateParams, u.params));
  n.attrs.push_back(real(a::kUpdateLaunches, u.launches));
}

[[noreturn]] void refuse(const RankProgram& r, const Op& op) {
  throw InputError(
      fmt::format("export-chakra: rank {} op {} '{}' is a {}, which Chakra has no node for (sync.policy "
                  "ssp, backup and gossip do not export)",
                  r.rank, op.id, op.label, op_kind_name(op.body)));
}

EtNode node_of(const RankProgram& r, const Op& op) {
  EtNode n;
  n.id = static_cast<std::uint64_t>(op.id);
  n.name = op.label;
  n.data_deps.assign(op.deps.begin(), op.deps.end());
  n.attrs.push_back(num(a::kStream, static_cast<double>(op.stream)));
  n.attrs.push_back(num(a::kPhase, static_cast<double>(op.phase)));
  if (op.layer >= 0) n.attrs.push_back(num(a::kLayer, op.layer));
  if (op.micro_batch >= 0) n.attrs.push_back(num(a::kMicroBatch, op.micro_batch));
  if (op.period > 1) n.attrs.push_back(num(a::kPeriod, op.period));
  std::visit(Overloaded{
                 [&](const ComputeOp& c) { add_compute(n, c); },
                 [&](const UpdateOp& u) { add_update(n, u); },
                 [&](const CollectiveOp& c) {
                   n.type = static_cast<int>(EtNodeType::Collective);
                   n.attrs.push_back(num(a::kCommType, static_cast<double>(comm_type(c.kind))));
                   n.attrs.push_back(num(a::kCommSize, c.bytes));
                   n.attrs.push_back(text(a::kPgName, std::to_string(c.group)));
                   if (c.algorithm != nullptr) n.attrs.push_back(text(a::kAlgorithm, c.algorithm->name()));
                 },
                 [&](const SendOp& s) {
                   n.type = static_cast<int>(EtNodeType::Send);
                   n.attrs.push_back(num(a::kCommSrc, r.rank));
                   n.attrs.push_back(num(a::kCommDst, s.peer));
                   n.attrs.push_back(num(a::kCommSize, s.bytes));
                   n.attrs.push_back(num(a::kCommTag, s.tag));
                 },
                 [&](const RecvOp& v) {
                   n.type = static_cast<int>(EtNodeType::Recv);
                   n.attrs.push_back(num(a::kCommSrc, v.peer));
                   n.attrs.push_back(num(a::kCommDst, r.rank));
                   n.attrs.push_back(num(a::kCommSize, v.bytes));
                   n.attrs.push_back(num(a::kCommTag, v.tag));
                 },
                 [&](const GateOp&) { refuse(r, op); },
                 [&](const QuorumOp&) { refuse(r, op); },
                 [&](const GossipOp&) { refuse(r, op); },
             },
             op.body);
  return n;
}

void add_metadata(const Plan& plan, const RankProgram& r, EtTrace& t) {
  t.version = "0.0.4";
  const JobPlan& job = plan.jobs.front();
  t.metadata.push_back(text(a::kPlanName, plan.name));
  t.metadata.push_back(text(a::kRole, r.role == Role::Server ? "server" : "worker"));
  t.metadata.push_back(num(a::kNode, r.where.node));
  t.metadata.push_back(num(a::kLocal, r.where.local));
  if (r.stage >= 0) t.metadata.push_back(num(a::kStage, r.stage));
  if (r.shard >= 0) t.metadata.push_back(num(a::kShard, r.shard));
  if (r.serves >= 0) t.metadata.push_back(num(a::kServes, r.serves));
  t.metadata.push_back(num(a::kServerNodes, plan.server_nodes));
  t.metadata.push_back(num(a::kShards, job.shards));
  t.metadata.push_back(real(a::kSamples, job.samples_per_iteration));
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    const CommGroup& group = plan.groups[g];
    bool member = false;
    for (int m : group.ranks) member = member || m == r.rank;
    if (!member) continue;
    const std::string name = std::to_string(g);
    t.metadata.push_back(
        EtAttr{std::string(a::kPgRanks) + name, std::vector<std::int64_t>(group.ranks.begin(), group.ranks.end())});
    t.metadata.push_back(num(std::string(a::kPgPerNode) + name, group.per_node));
    t.metadata.push_back(num(std::string(a::kPgSiblings) + name, group.siblings));
    t.metadata.push_back(num(std::string(a::kPgKind) + name, static_cast<double>(group.kind)));
  }
}

}  // namespace

EtTrace export_chakra_rank(const Plan& plan, int rank, const OpDuration& duration) {
  if (plan.jobs.size() != 1) {
    throw InputError(fmt::format("export-chakra: the plan has {} jobs; Chakra traces hold one", plan.jobs.size()));
  }
  const RankProgram& r = plan.ranks[static_cast<size_t>(rank)];
  EtTrace t;
  add_metadata(plan, r, t);
  t.nodes.reserve(r.ops.size());
  int last[2] = {-1, -1};  // the previous op of each FIFO stream
  for (const Op& op : r.ops) {
    EtNode n = node_of(r, op);
    if (op.stream != Stream::Posted) {
      int& prev = last[static_cast<int>(op.stream)];
      bool listed = false;
      for (int d : op.deps) listed = listed || d == prev;
      if (prev >= 0 && !listed) n.ctrl_deps.push_back(static_cast<std::uint64_t>(prev));
      prev = op.id;
    }
    if (duration) n.duration_micros = static_cast<std::uint64_t>(std::llround(duration(r, op) * 1e6));
    t.nodes.push_back(std::move(n));
  }
  return t;
}

}  // namespace dtsim
