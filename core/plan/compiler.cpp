// Data-parallel plans: every worker runs forward and backward; gradients are combined by
// bucketed AllReduce (DDP-style overlap, optionally compressed) or pushed to parameter-server shards and pulled back.
// Several jobs compile into one plan, each on its own devices.
#include "core/plan/compiler.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "core/plan/chakra_import.hpp"
#include "core/plan/compress.hpp"
#include "core/plan/gossip.hpp"
#include "core/plan/hybrid.hpp"
#include "core/plan/parameter_server.hpp"
#include "core/plan/stragglers.hpp"
#include "core/plan/worker.hpp"

namespace dtsim {
namespace {

int jp_index(const Plan& plan, const JobPlan& jp) { return static_cast<int>(&jp - plan.jobs.data()); }

// Workers of a job fill its placement node by node.
void place_workers(const Scenario& s, const JobSpec& job, int job_index, Plan& plan) {
  const int per_node = job.local_count(s.cluster);
  for (int w = 0; w < job.workers(s.cluster); ++w) {
    RankProgram r;
    r.rank = static_cast<int>(plan.ranks.size());
    r.job = job_index;
    r.role = Role::Worker;
    r.where = Placement{job.placement.first_node + w / per_node, job.placement.first_local + w % per_node};
    plan.jobs[job_index].workers.push_back(r.rank);
    plan.ranks.push_back(std::move(r));
  }
}

// What a data-parallel worker's program is compiled from: its job, and the job's place in the plan (the group and
// job indices are in its ops). The number of workers and their grouping count only where they reach the ops: a
// compressor's steps and gather algorithm, and backup workers' quorum.
struct WorkerProgramKey {
  JobSpec job;
  int workers = 0;
  int per_node = 0;
  int group = 0;
  int job_index = 0;
};

// The last worker program compiled on this thread: a sweep's points that differ only in the cluster (its size, its
// links) compile their job's program once. The cache and the plans share that one copy (Program).
struct WorkerProgram {
  Program ops;
  std::vector<double> unit_bytes;  // JobPlan::unit_bytes
};
std::optional<std::pair<WorkerProgramKey, WorkerProgram>>& last_worker_program() {
  thread_local std::optional<std::pair<WorkerProgramKey, WorkerProgram>> last;
  return last;
}

void compile_allreduce(const Scenario& s, const JobSpec& job, JobPlan& jp, Plan& plan, bool first_only) {
  const double grad_bytes = dtype_bytes(job.model.grad_dtype);
  const CollectiveAlgorithm& algorithm = find_algorithm(job.strategy.algorithm);
  CommGroup all;
  all.ranks = jp.workers;
  const int workers = static_cast<int>(jp.workers.size());
  const int per_node = std::min(job.local_count(s.cluster), workers);
  all.per_node = (workers % per_node == 0) ? per_node : 1;
  const int group = static_cast<int>(plan.groups.size());
  const GroupShape shape{workers, all.per_node, 0};
  plan.groups.push_back(std::move(all));

  // Every worker runs the same program (nothing in it depends on the rank: its group is the job's, its costs
  // are the cost model's): the first compiles it, the others share it (Program, plan.hpp).
  const auto share = [&](const Program& first) {
    for (int rank : jp.workers) {
      plan.ranks[rank].ops = first;
      if (first_only) break;
    }
  };
  const bool by_workers = job.compression.method != CompressionMethod::None || job.sync.kind == SyncKind::Backup;
  const int key_workers = by_workers ? workers : 0;
  const int key_per_node = by_workers ? shape.per_node : 0;
  auto& last = last_worker_program();
  if (last && last->first.workers == key_workers && last->first.per_node == key_per_node &&
      last->first.group == group && last->first.job_index == jp_index(plan, jp) && last->first.job == job) {
    jp.unit_bytes = last->second.unit_bytes;
    share(last->second.ops);
    return;
  }

  // Units exchanged as one: DDP buckets, or every layer (last layer first) at layer granularity.
  const auto buckets = gradient_buckets(job.workload, grad_bytes, job.strategy.bucket_size);
  std::vector<std::vector<int>> units = buckets;
  const bool per_layer = job.compression.granularity == CompressionGranularity::Layer;
  if (per_layer) {
    units.clear();
    for (const auto& bucket : buckets) {
      for (int l : bucket) units.push_back({l});
    }
  }
  const CollectiveAlgorithm* gather =
      algorithm.supports(CollectiveKind::AllGather, shape) ? &algorithm : &find_algorithm("ring");

  for (const auto& unit : units) {
    double params = 0;
    for (int l : unit) params += job.workload.layers[l].params;
    jp.unit_bytes.push_back(params * grad_bytes);
  }
  if (!jp.workers.empty()) {
    RankProgram& r = plan.ranks[jp.workers.front()];
    const PassOps pass = add_forward_backward(r, job);
    int quorum = -1;
    if (job.sync.kind == SyncKind::Backup) {
      // Backup workers: the exchange starts once the first N of N + b gradients are ready (the
      // others abandon their compute and contribute nothing), so it cannot overlap backward.
      const int keep = workers - job.sync.backup_workers;
      r.ops.push_back(new_op(r, fmt::format("first {} of {} gradients", keep, workers), Stream::Posted,
                             Phase::Communication, {pass.last}, QuorumOp{jp_index(plan, jp), keep}));
      quorum = r.ops.back().id;
    }
    std::vector<int> update_deps{quorum >= 0 ? quorum : pass.last};
    ExchangeContext ctx{group, workers, &algorithm, gather, 0};
    for (size_t u = 0; u < units.size(); ++u) {
      GradientUnit unit;
      for (int l : units[u]) unit.params += job.workload.layers[l].params;
      unit.ready = quorum >= 0 ? quorum : (job.strategy.overlap ? pass.backward[units[u].back()] : pass.last);
      unit.name =
          per_layer ? fmt::format("layer {}", job.workload.layers[units[u].front()].name) : fmt::format("bucket {}", u);
      update_deps.push_back(add_gradient_exchange(r, job, unit, ctx));
    }
    if (job.sync.kind == SyncKind::LocalSgd) {
      // Local SGD: each worker steps on its own gradients; the exchange (now of the models, of the
      // same size) happens every `period` iterations.
      for (Op& op : r.ops.edit()) {
        if (op.phase == Phase::Communication || op.phase == Phase::Compression) op.period = job.sync.period;
      }
    }
    Op update;
    update.id = static_cast<int>(r.ops.size());
    update.label = "optimizer step";
    update.phase = Phase::Optimizer;
    update.deps = update_deps;
    update.body = make_update(job, job.workload.total_params());
    r.ops.push_back(std::move(update));
    last.emplace(WorkerProgramKey{job, key_workers, key_per_node, group, jp_index(plan, jp)},
                 WorkerProgram{r.ops, jp.unit_bytes});
    share(r.ops);
  }
}

}  // namespace

std::vector<std::vector<int>> gradient_buckets(const Workload& w, double bytes_per_param, double bucket_bytes) {
  std::vector<std::vector<int>> buckets;
  std::vector<int> current;
  double filled = 0;
  for (int l = static_cast<int>(w.layers.size()) - 1; l >= 0; --l) {
    if (w.layers[l].params <= 0) continue;
    current.push_back(l);
    filled += w.layers[l].params * bytes_per_param;
    if (filled >= bucket_bytes) {
      buckets.push_back(std::move(current));
      current.clear();
      filled = 0;
    }
  }
  if (!current.empty()) buckets.push_back(std::move(current));
  return buckets;
}

Plan compile_plan(const Scenario& s) { return compile_plan(s, PlanScope::AllRanks); }

Plan compile_plan(const Scenario& s, PlanScope scope) { return compile_plan(s, scope, PlanDetail::Kernels); }

bool has_representatives(const Scenario& s) {
  return std::all_of(s.jobs.begin(), s.jobs.end(), [](const JobSpec& j) {
    return j.sync.kind != SyncKind::Gossip && j.chakra.prefix.empty() &&
           (j.strategy.kind == StrategyKind::AllReduce || j.strategy.kind == StrategyKind::Hybrid);
  });
}

namespace {
std::atomic<long> compilations{0};
}  // namespace

long plans_compiled() { return compilations.load(); }

Plan compile_plan(const Scenario& s, PlanScope scope, PlanDetail detail) {
  ++compilations;
  Plan plan;
  plan.name = s.name;
  plan.iterations = s.run.iterations;
  plan.warmup = s.run.warmup;
  plan.jobs.resize(s.jobs.size());
  // Workers of every job first, then each job's servers: worker ranks follow the devices.
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    const JobSpec& job = s.jobs[i];
    plan.jobs[i].name = job.name;
    plan.jobs[i].samples_per_iteration = static_cast<double>(job.workers(s.cluster)) * job.model.batch_per_worker;
    plan.jobs[i].compression = job.compression;
    plan.jobs[i].framework = job.framework;
    if (job.chakra.prefix.empty()) place_workers(s, job, static_cast<int>(i), plan);
  }
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    const JobSpec& job = s.jobs[i];
    if (job.sync.kind == SyncKind::Backup) {
      // Only the N kept gradients of N + b count as samples.
      plan.jobs[i].samples_per_iteration =
          static_cast<double>(job.workers(s.cluster) - job.sync.backup_workers) * job.model.batch_per_worker;
    }
    if (!job.chakra.prefix.empty()) {
      compile_chakra(s, job, static_cast<int>(i), plan);  // the loader allows it as the only job
    } else if (job.sync.kind == SyncKind::Gossip) {
      if (scope == PlanScope::Representatives) throw RuntimeError("plan: gossip workers do not compile one alone");
      compile_gossip(job, static_cast<int>(i), plan);
    } else if (job.strategy.kind == StrategyKind::Hybrid) {
      const HybridSpec layout = job_layout(s, job);
      plan.jobs[i].samples_per_iteration = layout.micro_batch * layout.data * layout.micro_batches();
      compile_hybrid(s, job, static_cast<int>(i), plan, scope == PlanScope::Representatives, detail);
      plan.jobs[i].memory = job_memory(s, job);
      plan.jobs[i].device_memory = s.cluster.device_at(job.placement.first_node).mem_capacity;
      for (int n = job.placement.first_node; n < job.placement.first_node + job.node_count(s.cluster); ++n) {
        plan.jobs[i].device_memory = std::min(plan.jobs[i].device_memory, s.cluster.device_at(n).mem_capacity);
      }
    } else if (job.strategy.kind == StrategyKind::AllReduce) {
      compile_allreduce(s, job, plan.jobs[i], plan, scope == PlanScope::Representatives);
    } else {
      if (scope == PlanScope::Representatives) {
        throw RuntimeError("plan: parameter-server jobs have no representative ranks");
      }
      compile_parameter_server(s, job, static_cast<int>(i), plan);
    }
  }
  apply_stragglers(s, plan);
  draw_gossip_peers(s, plan);
  return plan;
}

}  // namespace dtsim
