// Chakra traces -> a Plan. One rank at a time (a set may hold millions of nodes): its nodes are
// ordered by their dependencies, nodes of types dtsim does not model pass their dependencies on,
// and the rest become ops. Groups and messages are settled once every rank is read.
#include "core/plan/chakra/import.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "core/chakra/et_file.hpp"
#include "core/plan/chakra/attrs.hpp"
#include "core/plan/chakra/graph.hpp"
#include "core/plan/chakra/node_attrs.hpp"
#include "core/plan/deadlock.hpp"

namespace dtsim {
namespace {

namespace a = chakra_attr;

bool modelled(int type) {
  switch (static_cast<EtNodeType>(type)) {
    case EtNodeType::Compute:
    case EtNodeType::MemLoad:
    case EtNodeType::MemStore:
    case EtNodeType::Send:
    case EtNodeType::Recv:
    case EtNodeType::Collective: return true;
    case EtNodeType::Invalid:
    case EtNodeType::Metadata:
    case EtNodeType::Storage:
    case EtNodeType::Batch:
    case EtNodeType::Checkpoint: return false;
  }
  return false;
}

bool known_metadata_attr(std::string_view name) {
  static const std::unordered_set<std::string_view> known{a::kPlanName, a::kRole,   a::kNode,   a::kLocal,
                                                          a::kStage,    a::kShard,  a::kServes, a::kServerNodes,
                                                          a::kShards,   a::kSamples};
  for (std::string_view ignored : a::kIgnoredMetadata) {
    if (name == ignored) return true;
  }
  for (std::string_view prefix : {a::kPgRanks, a::kPgPerNode, a::kPgSiblings, a::kPgKind}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return known.count(name) > 0;
}

// A collective as dtsim runs it: Chakra's GATHER and SCATTER have no dtsim kind and run as the REDUCE
// and BROADCAST of the same bytes (same traffic, no reduction work); a BARRIER is a zero-byte AllReduce.
struct CommKind {
  CollectiveKind kind;
  bool approximate;
};
CommKind comm_kind(std::int64_t type) {
  switch (static_cast<EtCommType>(type)) {
    case EtCommType::AllReduce:
    case EtCommType::Barrier: return {CollectiveKind::AllReduce, false};
    case EtCommType::Reduce: return {CollectiveKind::Reduce, false};
    case EtCommType::AllGather: return {CollectiveKind::AllGather, false};
    case EtCommType::Gather: return {CollectiveKind::Reduce, true};
    case EtCommType::Scatter: return {CollectiveKind::Broadcast, true};
    case EtCommType::Broadcast: return {CollectiveKind::Broadcast, false};
    case EtCommType::AllToAll: return {CollectiveKind::AllToAll, false};
    case EtCommType::ReduceScatter:
    case EtCommType::ReduceScatterBlock: return {CollectiveKind::ReduceScatter, false};
  }
  return {CollectiveKind::AllReduce, true};
}

struct Group {
  std::string name;
  std::vector<int> described;  // pg_ranks.<name> from the metadata, or empty
  std::vector<int> users;      // ranks whose collectives name it, in the order they were read
  int per_node = 0, siblings = 1;
  GroupKind kind = GroupKind::Data;
};

// Where a message's two ends are (rank and node id; rank -1: not seen).
struct Ends {
  int send_rank = -1, recv_rank = -1;
  std::uint64_t send_node = 0, recv_node = 0;
  std::int64_t tag = 0;
};

class Importer {
 public:
  Importer(const Scenario& s, const JobSpec& job, int job_index, Plan& plan)
      : s_(s), job_(job), job_index_(job_index), plan_(plan), files_(et_files(job.chakra.prefix)) {}

  void run() {
    for (int r = 0; r < static_cast<int>(files_.size()); ++r) read_rank(r);
    settle_groups();
    settle_messages();
    settle_job();
    settle_deadlock();
  }

 private:
  // A worker's device is in the cluster (checked as each rank is read: a set too big fails at once).
  void check_placement(const RankProgram& r) const {
    const int per_node = s_.cluster.devices_per_node;
    const bool outside =
        r.where.node < 0 || r.where.local < 0 || r.where.local >= per_node || r.where.node >= s_.cluster.nodes;
    if (r.role == Role::Worker && outside) {
      throw InputError(s_.location_of(s_.job_key(0, "workload.chakra")),
                       fmt::format("{} Chakra traces, but rank {} would run on node {} device {} of a cluster of {} "
                                   "nodes x {} devices",
                                   files_.size(), r.rank, r.where.node, r.where.local, s_.cluster.nodes, per_node));
    }
  }

  [[noreturn]] void fail(int rank, const std::string& message) const {
    throw InputError(SourceLocation{files_[static_cast<size_t>(rank)]}, fmt::format("rank {}: {}", rank, message));
  }

  void warn_once(const std::string& key, int rank, const std::string& message) {
    if (warned_.insert(key).second) {
      plan_.warnings.push_back(
          fmt::format("{}: warning: rank {}: {} (warned once)", files_[static_cast<size_t>(rank)], rank, message));
    }
  }

  void read_metadata(int r, const EtTrace& t, RankProgram& prog) {
    const std::vector<EtAttr>& m = t.metadata;
    const int dpn = s_.cluster.devices_per_node;
    prog.where = Placement{static_cast<int>(attr_number(m, a::kNode).value_or(r / dpn)),
                           static_cast<int>(attr_number(m, a::kLocal).value_or(r % dpn))};
    prog.role = attr_text(m, a::kRole).value_or("worker") == "server" ? Role::Server : Role::Worker;
    prog.stage = static_cast<int>(attr_number(m, a::kStage).value_or(-1));
    prog.shard = static_cast<int>(attr_number(m, a::kShard).value_or(-1));
    prog.serves = static_cast<int>(attr_number(m, a::kServes).value_or(-1));
    server_nodes_ = std::max(server_nodes_, static_cast<int>(attr_number(m, a::kServerNodes).value_or(0)));
    shards_ = std::max(shards_, static_cast<int>(attr_number(m, a::kShards).value_or(0)));
    if (const auto samples = attr_number(m, a::kSamples)) samples_ = *samples;
    for (const EtAttr& attr : m) {
      if (!known_metadata_attr(attr.name)) {
        warn_once("meta:" + attr.name, r, fmt::format("metadata attribute '{}' is not modelled (ignored)", attr.name));
        continue;
      }
      const auto suffix = [&](std::string_view prefix) {
        return attr.name.rfind(prefix, 0) == 0 ? std::optional<std::string>(attr.name.substr(prefix.size()))
                                               : std::nullopt;
      };
      if (const auto name = suffix(a::kPgRanks)) {
        Group& g = group(*name);
        if (g.described.empty()) {
          for (std::int64_t x : attr_ints(m, attr.name).value_or(std::vector<std::int64_t>{}))
            g.described.push_back(static_cast<int>(x));
        }
      } else if (const auto per = suffix(a::kPgPerNode)) {
        group(*per).per_node = static_cast<int>(attr_number(m, attr.name).value_or(0));
      } else if (const auto sib = suffix(a::kPgSiblings)) {
        group(*sib).siblings = static_cast<int>(attr_number(m, attr.name).value_or(1));
      } else if (const auto kind = suffix(a::kPgKind)) {
        group(*kind).kind = static_cast<GroupKind>(attr_number(m, attr.name).value_or(0));
      }
    }
  }

  Group& group(const std::string& name) {
    auto [it, added] = group_index_.emplace(name, static_cast<int>(groups_.size()));
    if (added) groups_.push_back(Group{name, {}, {}});
    return groups_[static_cast<size_t>(it->second)];
  }

  double required(int r, const EtNode& n, const NodeAttrs& at, NodeKey key) const {
    const auto v = at.number(key);
    if (!v) {
      fail(r, fmt::format("node {} ({}) has no {} attribute", n.id, et_node_type_name(n.type), node_key_name(key)));
    }
    return *v;
  }

  OpBody compute_body(const EtNode& n, const NodeAttrs& at) const {
    const bool compute = n.type == static_cast<int>(EtNodeType::Compute);
    const double flops = compute ? at.number(NodeKey::NumOps).value_or(0) : 0;
    const double bytes = at.number(NodeKey::TensorSize).value_or(0);
    const ChakraTiming timing = job_.chakra.timing;
    const bool by_duration =
        timing == ChakraTiming::Duration || (timing == ChakraTiming::Auto && n.duration_micros > 0);
    const Dtype dtype = parse_dtype(at.text(NodeKey::Dtype).value_or(std::string(dtype_name(job_.model.dtype))));
    if (!by_duration) {
      if (const auto params = at.number(NodeKey::UpdateParams)) {
        UpdateOp u{*params, flops, bytes, dtype};
        u.launches = std::max(1.0, at.number(NodeKey::UpdateLaunches).value_or(1));
        return u;
      }
    }
    ComputeOp c;
    c.dtype = dtype;
    if (const auto cls = at.text(NodeKey::KernelClass)) c.cls = parse_kernel_class(*cls).value_or(KernelClass::Layer);
    if (const EtValue* g = at.value(NodeKey::Gemm)) {
      // m, n, k, batch, backward, and (since attention kernels carry their shape) causal, and (since fp8 gradients
      // split their accumulator) split_accumulate
      if (const auto* v = std::get_if<std::vector<double>>(g); v != nullptr && v->size() >= 5 && v->size() <= 7) {
        c.gemm = GemmShape{(*v)[0],
                           (*v)[1],
                           (*v)[2],
                           (*v)[3],
                           (*v)[4] != 0,
                           v->size() >= 6 && (*v)[5] != 0,
                           v->size() == 7 && (*v)[6] != 0};
      }
    }
    if (const EtValue* rr = at.value(NodeKey::Reread)) {
      if (const auto* v = std::get_if<std::vector<double>>(rr); v != nullptr && v->size() == 2) {
        c.reread = Reread{(*v)[0], (*v)[1]};
      }
    }
    if (by_duration) {
      c.host = static_cast<double>(n.duration_micros) * 1e-6;
    } else {
      c.flops = flops;
      c.mem_bytes = bytes;
      c.host = at.number(NodeKey::Host).value_or(0);
    }
    return c;
  }

  OpBody collective_body(int r, const EtNode& n, const NodeAttrs& at) {
    const CommKind k = comm_kind(static_cast<std::int64_t>(required(r, n, at, NodeKey::CommType)));
    const auto type = static_cast<EtCommType>(static_cast<int>(*at.number(NodeKey::CommType)));
    if (k.approximate) {
      warn_once(fmt::format("comm_type:{}", static_cast<int>(type)), r,
                fmt::format("node {}: comm_type {} runs as the {} of the same bytes", n.id, static_cast<int>(type),
                            collective_name(k.kind)));
    }
    CollectiveOp c;
    c.kind = k.kind;
    c.bytes = type == EtCommType::Barrier ? 0.0 : required(r, n, at, NodeKey::CommSize);
    const std::string pg = at.text(NodeKey::PgName).value_or("");
    Group& g = group(pg);
    c.group = group_index_.at(pg);
    if (g.users.empty() || g.users.back() != r) g.users.push_back(r);
    c.seq = seq_[static_cast<size_t>(r)][c.group]++;
    const std::string algorithm = at.text(NodeKey::Algorithm).value_or(job_.strategy.algorithm);
    const auto names = algorithm_names();
    c.algorithm = &find_algorithm(
        std::find(names.begin(), names.end(), algorithm) != names.end() ? algorithm : job_.strategy.algorithm);
    return c;
  }

  // A message's ends meet under one tag of their own: the k-th message from src to dst with a trace's
  // tag t on both sides (MPI's order of matching).
  int message_tag(int src, int dst, std::int64_t tag, bool send, int rank, std::uint64_t node) {
    const auto key = std::make_tuple(src, dst, tag);
    int& count = (send ? sent_ : received_)[key];
    const auto [it, added] = messages_.emplace(std::make_tuple(src, dst, tag, count++), static_cast<int>(ends_.size()));
    if (added) ends_.push_back(Ends{-1, -1, 0, 0, tag});
    Ends& e = ends_[static_cast<size_t>(it->second)];
    (send ? e.send_rank : e.recv_rank) = rank;
    (send ? e.send_node : e.recv_node) = node;
    return it->second;
  }

  int peer(int r, const EtNode& n, const NodeAttrs& at, NodeKey key) const {
    const double p = required(r, n, at, key);
    const std::string_view attr = node_key_name(key);
    if (p < 0 || p >= static_cast<double>(files_.size()) || static_cast<int>(p) == r) {
      fail(r, fmt::format("node {}: {} {} is not another rank of the {} traces", n.id, attr, p, files_.size()));
    }
    return static_cast<int>(p);
  }

  Op make_op(int r, const EtNode& n) {
    const NodeAttrs at(n, [&](const EtAttr& attr) {
      warn_once("attr:" + attr.name, r,
                fmt::format("node {}: attribute '{}' is not modelled (ignored)", n.id, attr.name));
    });
    Op op;
    op.label = n.name.empty() ? fmt::format("node {}", n.id) : n.name;
    op.phase = Phase::Communication;
    switch (static_cast<EtNodeType>(n.type)) {
      case EtNodeType::Compute:
      case EtNodeType::MemLoad:
      case EtNodeType::MemStore:
        op.stream = Stream::Compute;
        op.phase = Phase::Forward;
        op.body = compute_body(n, at);
        break;
      case EtNodeType::Collective:
        op.stream = Stream::Comm;
        op.body = collective_body(r, n, at);
        break;
      case EtNodeType::Send: {
        op.stream = Stream::Posted;
        const int dst = peer(r, n, at, NodeKey::CommDst);
        const auto tag = static_cast<std::int64_t>(at.number(NodeKey::CommTag).value_or(0));
        op.body = SendOp{dst, required(r, n, at, NodeKey::CommSize), message_tag(r, dst, tag, true, r, n.id)};
        break;
      }
      case EtNodeType::Recv: {
        op.stream = Stream::Posted;
        const int src = peer(r, n, at, NodeKey::CommSrc);
        const auto tag = static_cast<std::int64_t>(at.number(NodeKey::CommTag).value_or(0));
        op.body = RecvOp{src, required(r, n, at, NodeKey::CommSize), message_tag(src, r, tag, false, r, n.id)};
        break;
      }
      case EtNodeType::Invalid:
      case EtNodeType::Metadata:
      case EtNodeType::Storage:
      case EtNodeType::Batch:
      case EtNodeType::Checkpoint: break;
    }
    if (const auto stream = at.number(NodeKey::Stream); stream && *stream >= 0 && *stream <= 2) {
      op.stream = static_cast<Stream>(static_cast<int>(*stream));
    }
    if (const auto phase = at.number(NodeKey::Phase);
        phase && *phase >= 0 && *phase <= static_cast<double>(Phase::Framework)) {
      op.phase = static_cast<Phase>(static_cast<int>(*phase));
    }
    op.layer = static_cast<int>(at.number(NodeKey::Layer).value_or(-1));
    op.micro_batch = static_cast<int>(at.number(NodeKey::MicroBatch).value_or(-1));
    op.period = std::max(1, static_cast<int>(at.number(NodeKey::Period).value_or(1)));
    return op;
  }

  void read_rank(int r) {
    const EtTrace t = read_et(files_[static_cast<size_t>(r)], r);
    RankProgram& prog = plan_.ranks.emplace_back();
    prog.rank = r;
    prog.job = job_index_;
    read_metadata(r, t, prog);
    check_placement(prog);
    seq_.emplace_back();
    node_ids_.emplace_back();
    const ChakraGraph graph = order_nodes(t.nodes, [&](const std::string& m) { fail(r, m); });
    std::vector<int> op_of(t.nodes.size(), -1);
    std::vector<std::vector<int>> passed(t.nodes.size());  // an unmodelled node: the ops it stands after
    prog.ops.reserve(t.nodes.size());
    for (const int i : graph.order) {
      const EtNode& n = t.nodes[static_cast<size_t>(i)];
      std::vector<int> deps;
      for (const int* dep = graph.deps_begin(i); dep != graph.deps_end(i); ++dep) {
        const auto d = static_cast<size_t>(*dep);
        if (op_of[d] >= 0) {
          deps.push_back(op_of[d]);
        } else {
          deps.insert(deps.end(), passed[d].begin(), passed[d].end());
        }
      }
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      if (!modelled(n.type)) {
        warn_once(fmt::format("type:{}", n.type), r,
                  fmt::format("node {}: {} (type {}) is not modelled: such nodes take no time and pass their "
                              "dependencies on",
                              n.id, et_node_type_name(n.type), n.type));
        passed[static_cast<size_t>(i)] = std::move(deps);
        continue;
      }
      Op op = make_op(r, n);
      op.id = static_cast<int>(prog.ops.size());
      op.deps = std::move(deps);
      op_of[static_cast<size_t>(i)] = op.id;
      node_ids_.back().push_back(n.id);
      prog.ops.push_back(std::move(op));
    }
  }

  void settle_groups();
  void settle_messages() const;
  void settle_job();
  void settle_deadlock() const;

  const Scenario& s_;
  const JobSpec& job_;
  int job_index_;
  Plan& plan_;
  std::vector<std::string> files_;
  std::set<std::string> warned_;
  std::vector<Group> groups_;
  std::unordered_map<std::string, int> group_index_;
  std::vector<std::unordered_map<int, int>> seq_;  // per rank: collectives issued on each group
  std::map<std::tuple<int, int, std::int64_t>, int> sent_, received_;
  std::map<std::tuple<int, int, std::int64_t, int>, int> messages_;
  std::vector<Ends> ends_;
  std::vector<std::vector<std::uint64_t>> node_ids_;  // per rank: each op's node id
  int server_nodes_ = 0, shards_ = 0;
  double samples_ = -1;
};

// Consecutive members per node when every node of the group holds as many, else 1.
int members_per_node(const Plan& plan, const std::vector<int>& ranks) {
  const auto node = [&](size_t i) { return plan.ranks[static_cast<size_t>(ranks[i])].where.node; };
  size_t run = 1;
  while (run < ranks.size() && node(run) == node(0)) ++run;
  if (ranks.size() % run != 0) return 1;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (node(i) != node(i - i % run)) return 1;
    if (i % run == 0 && i > 0 && node(i) == node(i - 1)) return 1;
  }
  return static_cast<int>(run);
}

const CollectiveAlgorithm& supported_algorithm(const CollectiveAlgorithm& preferred, CollectiveKind kind,
                                               const GroupShape& shape) {
  for (const CollectiveAlgorithm* algo : {&preferred, &find_algorithm("ring"), &find_algorithm("direct")}) {
    if (algo->supports(kind, shape)) return *algo;
  }
  throw InputError(fmt::format("{} on a group of {} ranks: {}", collective_name(kind), shape.size,
                               preferred.unsupported_reason(kind, shape)));
}

void Importer::settle_groups() {
  const int ranks = static_cast<int>(files_.size());
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    Group& g = groups_[gi];
    CommGroup cg;
    if (!g.described.empty()) {
      cg.ranks = g.described;
    } else if (g.name.empty()) {
      cg.ranks.resize(static_cast<size_t>(ranks));
      std::iota(cg.ranks.begin(), cg.ranks.end(), 0);
    } else {
      cg.ranks = g.users;
      std::sort(cg.ranks.begin(), cg.ranks.end());
    }
    for (const int m : cg.ranks) {
      if (m < 0 || m >= ranks)
        fail(g.users.empty() ? 0 : g.users.front(),
             fmt::format("process group '{}' names rank {}, of {} traces", g.name, m, ranks));
    }
    const int gid = static_cast<int>(gi);
    const auto issued = [&](int r) {
      const auto& seqs = seq_[static_cast<size_t>(r)];
      const auto it = seqs.find(gid);
      return it == seqs.end() ? 0 : it->second;
    };
    for (const int u : g.users) {
      if (std::find(cg.ranks.begin(), cg.ranks.end(), u) == cg.ranks.end()) {
        fail(u, fmt::format("a collective on process group '{}', whose ranks do not include {}", g.name, u));
      }
    }
    for (const int m : cg.ranks) {
      if (issued(m) != issued(cg.ranks.front())) {
        const int fewer = issued(m) < issued(cg.ranks.front()) ? m : cg.ranks.front();
        const int more = fewer == m ? cg.ranks.front() : m;
        fail(fewer, fmt::format("{} collectives on process group '{}', where rank {} issues {}: they would wait for "
                                "each other forever",
                                issued(fewer), g.name.empty() ? "(all ranks)" : g.name, more, issued(more)));
      }
    }
    cg.per_node = g.per_node > 0 ? g.per_node : members_per_node(plan_, cg.ranks);
    if (cg.ranks.size() % static_cast<size_t>(cg.per_node) != 0) cg.per_node = 1;
    cg.kind = g.kind;
    cg.siblings = std::max(1, g.siblings);
    plan_.groups.push_back(std::move(cg));
  }
  for (RankProgram& r : plan_.ranks) {
    for (Op& op : r.ops.edit()) {
      auto* c = std::get_if<CollectiveOp>(&op.body);
      if (c == nullptr) continue;
      const CommGroup& g = plan_.groups[static_cast<size_t>(c->group)];
      c->algorithm =
          &supported_algorithm(*c->algorithm, c->kind, GroupShape{static_cast<int>(g.ranks.size()), g.per_node, 0});
    }
  }
}

void Importer::settle_messages() const {
  for (const Ends& e : ends_) {
    if (e.send_rank < 0) {
      fail(e.recv_rank, fmt::format("node {} receives a message with tag {} that no node sends (a send to rank {} "
                                    "with that tag is missing or fewer)",
                                    e.recv_node, e.tag, e.recv_rank));
    }
    if (e.recv_rank < 0) {
      fail(e.send_rank, fmt::format("node {} sends a message with tag {} that no node receives", e.send_node, e.tag));
    }
  }
}

void Importer::settle_job() {
  JobPlan& jp = plan_.jobs[static_cast<size_t>(job_index_)];
  for (const RankProgram& r : plan_.ranks) (r.role == Role::Server ? jp.servers : jp.workers).push_back(r.rank);
  jp.samples_per_iteration =
      samples_ >= 0 ? samples_ : static_cast<double>(jp.workers.size()) * job_.model.batch_per_worker;
  jp.shards = shards_;
  jp.framework = job_.framework;
  plan_.server_nodes = std::max(plan_.server_nodes, server_nodes_);
}

// A deadlock among matched messages and complete groups (rank 0 receives before it sends to rank 1,
// which does the same) is refused here, naming the node, rather than found by an engine mid-run.
void Importer::settle_deadlock() const {
  const std::optional<StuckOp> stuck = find_deadlock(plan_);
  if (!stuck) return;
  const Op& op = plan_.ranks[static_cast<size_t>(stuck->rank)].ops[static_cast<size_t>(stuck->op)];
  std::string waits = "the nodes it depends on, which never end";
  if (stuck->reached) {
    if (const auto* send = std::get_if<SendOp>(&op.body)) {
      waits = fmt::format("rank {} to receive it, which never happens", send->peer);
    } else if (const auto* recv = std::get_if<RecvOp>(&op.body)) {
      waits = fmt::format("rank {}'s send, which never comes", recv->peer);
    } else if (const auto* c = std::get_if<CollectiveOp>(&op.body)) {
      waits = fmt::format("the other members of process group '{}', which never all arrive",
                          groups_[static_cast<size_t>(c->group)].name);
    }
  }
  fail(stuck->rank,
       fmt::format("node {} ('{}') never runs: the traces deadlock (it waits for {})",
                   node_ids_[static_cast<size_t>(stuck->rank)][static_cast<size_t>(stuck->op)], op.label, waits));
}

}  // namespace

void compile_chakra(const Scenario& s, const JobSpec& job, int job_index, Plan& plan) {
  Importer(s, job, job_index, plan).run();
}

}  // namespace dtsim
