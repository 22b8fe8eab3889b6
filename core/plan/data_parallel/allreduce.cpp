// An AllReduce job's plan: every worker runs forward and backward and combines its gradients by bucketed
// AllReduce, DDP-style (buckets filled in backward order, each exchanged once its last layer's backward is done),
// optionally compressed, per layer, by backup workers' quorum or every local-SGD period.
#include "core/plan/data_parallel/allreduce.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "core/plan/compress.hpp"
#include "core/plan/worker.hpp"

namespace dtsim {
namespace {

int jp_index(const Plan& plan, const JobPlan& jp) { return static_cast<int>(&jp - plan.jobs.data()); }

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

}  // namespace

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

}  // namespace dtsim
