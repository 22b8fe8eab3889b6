// One rank's kernels and collectives in one iteration (kernel_table.hpp).
#include "sim/kernel_table.hpp"

#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/plan/compiler.hpp"
#include "models/collectives/nccl/nccl_constants.hpp"
#include "models/cost/cost_model.hpp"
#include "models/zoo/reread.hpp"
#include "sim/run.hpp"

namespace dtsim::sim {
namespace {

std::vector<std::string> tokens(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

// The label without its trailing micro-batch ("fwd L3 qkv mb0" -> "fwd L3 qkv").
std::string without_micro_batch(const std::string& label) {
  std::vector<std::string> t = tokens(label);
  if (!t.empty() && t.back().size() > 2 && t.back().rfind("mb", 0) == 0 &&
      t.back().find_first_not_of("0123456789", 2) == std::string::npos) {
    t.pop_back();
  }
  std::string out;
  for (const std::string& s : t) out += (out.empty() ? "" : " ") + s;
  return out;
}

// Two labels of one row: each token that differs kept to the prefix they share, then "*" ("L0", "L7" -> "L*";
// "attn_0", "attn_11" -> "attn_*"). Labels of different lengths keep the first.
std::string merge_labels(const std::string& a, const std::string& b) {
  std::vector<std::string> x = tokens(a);
  const std::vector<std::string> y = tokens(b);
  if (x.size() != y.size()) return a;
  std::string out;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] != y[i]) {
      size_t n = 0;
      while (n < x[i].size() && n < y[i].size() && x[i][n] == y[i][n] && x[i][n] != '*') ++n;
      x[i] = x[i].substr(0, n) + "*";
    }
    out += (out.empty() ? "" : " ") + x[i];
  }
  return out;
}

// What two ops of one row share: everything their cost depends on ("" for ops shown in no row).
std::string cost_key(const Plan& plan, const Op& op) {
  const int stream = static_cast<int>(op.stream);
  const int phase = static_cast<int>(op.phase);
  if (const auto* c = std::get_if<ComputeOp>(&op.body)) {
    const GemmShape& g = c->gemm;
    return fmt::format("c {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}", stream, phase, static_cast<int>(c->cls),
                       static_cast<int>(c->dtype), c->flops, c->mem_bytes, g.m, g.n, g.k, g.batch, g.backward, g.causal,
                       c->composite >= 0 ? without_micro_batch(op.label) : "", c->host, static_cast<int>(c->codec));
  }
  if (const auto* c = std::get_if<CollectiveOp>(&op.body)) {
    const CommGroup& g = plan.groups[static_cast<size_t>(c->group)];
    return fmt::format("x {} {} {} {} {} {}", stream, phase, static_cast<int>(c->kind), c->bytes, g.ranks.size(),
                       static_cast<int>(g.kind));
  }
  if (const auto* u = std::get_if<UpdateOp>(&op.body)) {
    return fmt::format("u {} {} {} {} {}", u->params, u->flops, u->mem_bytes, static_cast<int>(u->dtype), u->launches);
  }
  if (const auto* m = std::get_if<SendOp>(&op.body)) return fmt::format("s {} {} {}", stream, m->peer, m->bytes);
  return "";
}

// What makes two ops one row: the same step (the label's last word once the micro-batch is gone: "qkv" of every
// block) in a label of as many words with the same first (a block's "fwd L3 allgather", not its "bwd L3 allgather"
// nor the embedding's "embedding allgather"), at the same cost.
std::string row_key(const Plan& plan, const Op& op) {
  const std::vector<std::string> words = tokens(without_micro_batch(op.label));
  const std::string step = words.empty() ? "" : words.back();
  const std::string cost = cost_key(plan, op);
  return cost.empty() ? "" : fmt::format("{} {} {} {}", words.size(), words.empty() ? "" : words.front(), step, cost);
}

// A row's first op: what it is, what it costs and what bounds it.
KernelRow first_row(const cost::CostModel& cost, const Plan& plan, const RankProgram& r, const Op& op) {
  KernelRow row;
  row.name = without_micro_batch(op.label);
  row.stream = op.stream;
  row.phase = op.phase;
  if (const auto* c = std::get_if<ComputeOp>(&op.body)) {
    row.kind = c->composite >= 0 ? "composite" : std::string(kernel_class_name(c->cls));
    row.shape = c->gemm;
    row.flops = c->flops;
    row.bytes = c->mem_bytes;
    row.seconds = cost.compute_time(r, *c);
    const std::optional<cost::CostModel::ComputeContext> ctx = cost.compute_context(r);
    if (c->composite >= 0) {
      row.bound = "composite";
    } else if (!ctx) {
      row.bound = "profile";
    } else {
      row.model = kernel_cost(ctx->device, ctx->efficiency, c->dtype, c->cls, c->flops,
                              c->mem_bytes + reread_memory_bytes(ctx->device, c->reread), c->gemm, ctx->attention);
      row.bound = row.seconds > row.model->seconds ? "launch" : std::string(kernel_bound_name(row.model->bound()));
    }
  } else if (const auto* x = std::get_if<CollectiveOp>(&op.body)) {
    const CommGroup& g = plan.groups[static_cast<size_t>(x->group)];
    row.kind = std::string(collective_name(x->kind));
    row.bytes = x->bytes;
    row.seconds = cost.collective_host_time(*x) + cost.collective_time(*x);
    if (const std::optional<nccl::Choice> choice = cost.nccl_choice(*x)) {
      row.bound = fmt::format("nccl {}/{}", nccl::algo_name(choice->algo), nccl::proto_name(choice->proto));
    } else {
      row.bound = std::string(x->algorithm->name());
    }
    row.name += fmt::format(" ({} ranks)", g.ranks.size());
  } else if (const auto* u = std::get_if<UpdateOp>(&op.body)) {
    row.kind = "optimizer";
    row.flops = u->flops;
    row.bytes = u->mem_bytes;
    row.seconds = cost.update_time(r, *u);
    row.bound = "memory";
  } else if (const auto* m = std::get_if<SendOp>(&op.body)) {
    const cost::TransferPath p = cost.path(r.where, plan.ranks[static_cast<size_t>(m->peer)].where, m->bytes);
    row.kind = "send";
    row.bytes = m->bytes;
    row.seconds = p.alpha + m->bytes / std::min(p.from_bw, p.to_bw);
    row.bound = "link";
  }
  return row;
}

int default_rank(const Plan& plan) {
  for (const JobPlan& j : plan.jobs) {
    if (!j.workers.empty()) return j.workers.front();
  }
  return 0;
}

}  // namespace

KernelTable kernel_table(const Scenario& s, int rank) {
  Scenario a = s;
  a.run.engine = Engine::Analytical;
  const Plan plan =
      compile_plan(a, has_representatives(a) ? PlanScope::Representatives : PlanScope::AllRanks, PlanDetail::Kernels);
  if (rank < 0) rank = default_rank(plan);
  if (rank >= static_cast<int>(plan.ranks.size()) || plan.ranks[static_cast<size_t>(rank)].ops.empty()) {
    std::string with;
    int listed = 0;
    for (const RankProgram& r : plan.ranks) {
      if (r.ops.empty()) continue;
      if (++listed > 16) {
        with += ", ...";
        break;
      }
      with += fmt::format("{}{}", with.empty() ? "" : ", ", r.rank);
    }
    throw InputError(fmt::format("--rank {}: of the plan's {} ranks, these have a program of their own: {}", rank,
                                 plan.ranks.size(), with));
  }
  const RankProgram& r = plan.ranks[static_cast<size_t>(rank)];
  const cost::CostModel cost(a.cluster, plan);
  KernelTable table;
  table.scenario = s.name;
  table.rank = rank;
  table.stage = r.stage;
  table.device = r.role == Role::Server ? a.cluster.server_device.name : a.cluster.device_at(r.where.node).name;
  std::map<std::string, size_t> row_of;
  for (const Op& op : r.ops) {
    const std::string key = row_key(plan, op);
    if (key.empty()) continue;
    const auto [at, fresh] = row_of.try_emplace(key, table.rows.size());
    if (fresh) {
      table.rows.push_back(first_row(cost, plan, r, op));
    } else {
      KernelRow& row = table.rows[at->second];
      const std::string name = without_micro_batch(op.label);
      const size_t paren = row.name.find(" (");
      row.name =
          merge_labels(row.name.substr(0, paren), name) + (paren == std::string::npos ? "" : row.name.substr(paren));
    }
    ++table.rows[row_of.at(key)].calls;
  }
  const std::vector<Metrics> jobs = run(a, RunRequest{Records::Blocks, false, {}}).metrics;
  table.step_seconds = jobs.at(static_cast<size_t>(r.job)).iteration_time.mean;
  return table;
}

}  // namespace dtsim::sim
