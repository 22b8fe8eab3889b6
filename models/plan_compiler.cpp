// Data-parallel plans: every worker runs forward and backward; gradients are combined by
// bucketed AllReduce (DDP-style overlap) or pushed to parameter-server shards and pulled back.
// Several jobs compile into one plan, each on its own devices.
#include "models/plan_compiler.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "models/plan_worker.hpp"

namespace dtsim {
namespace {

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

Op comm_op(RankProgram& r, std::string label, Stream stream, std::vector<int> deps, OpBody body) {
  Op op;
  op.id = static_cast<int>(r.ops.size());
  op.label = std::move(label);
  op.stream = stream;
  op.phase = Phase::Communication;
  op.deps = std::move(deps);
  op.body = std::move(body);
  return op;
}

void compile_allreduce(const Scenario& s, const JobSpec& job, JobPlan& jp, Plan& plan, bool first_only) {
  const double grad_bytes = dtype_bytes(job.model.grad_dtype);
  const auto buckets = gradient_buckets(job.workload, grad_bytes, job.strategy.bucket_size);
  const CollectiveAlgorithm& algorithm = find_algorithm(job.strategy.algorithm);
  CommGroup all;
  all.ranks = jp.workers;
  const int workers = static_cast<int>(jp.workers.size());
  const int per_node = std::min(job.local_count(s.cluster), workers);
  all.per_node = (workers % per_node == 0) ? per_node : 1;
  const int group = static_cast<int>(plan.groups.size());
  plan.groups.push_back(all);

  for (int rank : jp.workers) {
    if (first_only && rank != jp.workers.front()) break;
    RankProgram& r = plan.ranks[rank];
    const PassOps pass = add_forward_backward(r, job);
    std::vector<int> update_deps{pass.last};
    for (size_t b = 0; b < buckets.size(); ++b) {
      double params = 0;
      for (int l : buckets[b]) params += job.workload.layers[l].params;
      const int ready = job.strategy.overlap ? pass.backward[buckets[b].back()] : pass.last;
      Op op = comm_op(r, fmt::format("allreduce bucket {}", b), Stream::Comm, {ready},
                      CollectiveOp{CollectiveKind::AllReduce, params * grad_bytes, group, &algorithm,
                                   static_cast<int>(b)});
      update_deps.push_back(op.id);
      r.ops.push_back(std::move(op));
    }
    Op update;
    update.id = static_cast<int>(r.ops.size());
    update.label = "optimizer step";
    update.phase = Phase::Optimizer;
    update.deps = update_deps;
    update.body = make_update(job.workload.total_params(), job.model.optimizer);
    r.ops.push_back(std::move(update));
  }
}

// Parameters of each layer that fall in each shard: [shard][layer].
std::vector<std::vector<double>> shard_params(const Workload& w, int shards, PsSplit split) {
  const int layers = static_cast<int>(w.layers.size());
  std::vector<std::vector<double>> out(shards, std::vector<double>(layers, 0.0));
  if (split == PsSplit::ByLayer) {
    std::vector<double> load(shards, 0.0);
    std::vector<int> order(layers);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return w.layers[a].params > w.layers[b].params; });
    for (int l : order) {
      const int j = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
      out[j][l] = w.layers[l].params;
      load[j] += w.layers[l].params;
    }
    return out;
  }
  // Even: the flat parameter vector cut into equal pieces.
  const double total = w.total_params();
  double offset = 0;
  for (int l = 0; l < layers; ++l) {
    const double lo = offset, hi = offset + w.layers[l].params;
    for (int j = 0; j < shards; ++j) {
      const double s_lo = total * j / shards, s_hi = total * (j + 1) / shards;
      out[j][l] = std::max(0.0, std::min(hi, s_hi) - std::max(lo, s_lo));
    }
    offset = hi;
  }
  return out;
}

RankProgram make_server(const Scenario& s, const JobSpec& job, const JobPlan& jp, int shard, int rank, int job_index,
                        Plan& plan, double params) {
  const int shards = job.strategy.ps_shards;
  const double bytes = params * dtype_bytes(job.model.grad_dtype);
  const auto workers = static_cast<int>(jp.workers.size());
  RankProgram server;
  server.rank = rank;
  server.job = job_index;
  server.role = Role::Server;
  if (s.cluster.server_placement == ServerPlacement::Dedicated) {
    server.where = Placement{s.cluster.nodes + plan.server_nodes++, 0};
  } else {
    const int n = job.node_count(s.cluster);
    server.where = Placement{job.placement.first_node + shard % n, s.cluster.devices_per_node + shard / n};
  }
  std::vector<int> recvs;
  for (int w : jp.workers) {
    Op op = comm_op(server, fmt::format("recv grads r{}", w), Stream::Posted, {}, RecvOp{w, bytes, shard});
    recvs.push_back(op.id);
    server.ops.push_back(std::move(op));
  }
  Op aggregate;
  aggregate.id = static_cast<int>(server.ops.size());
  aggregate.label = "aggregate";
  aggregate.phase = Phase::Aggregate;
  aggregate.deps = recvs;
  // (N-1) additions per parameter; read N gradients, write one sum (fp32 accumulation).
  aggregate.body = ComputeOp{(workers - 1) * params, (workers + 1) * params * 4.0, Dtype::Fp32};
  server.ops.push_back(std::move(aggregate));
  Op update;
  update.id = static_cast<int>(server.ops.size());
  update.label = "optimizer step";
  update.phase = Phase::Optimizer;
  update.deps = {update.id - 1};
  update.body = make_update(params, job.model.optimizer);
  const int update_id = update.id;
  server.ops.push_back(std::move(update));
  for (int w : jp.workers) {
    server.ops.push_back(comm_op(server, fmt::format("send params r{}", w), Stream::Posted, {update_id},
                                 SendOp{w, bytes, shards + shard}));
  }
  return server;
}

void compile_parameter_server(const Scenario& s, const JobSpec& job, int job_index, Plan& plan) {
  JobPlan& jp = plan.jobs[job_index];
  const int shards = job.strategy.ps_shards;
  const double grad_bytes = dtype_bytes(job.model.grad_dtype);
  const auto split = shard_params(job.workload, shards, job.strategy.ps_split);
  const int first_server = static_cast<int>(plan.ranks.size());

  for (int rank : jp.workers) {
    RankProgram& r = plan.ranks[rank];
    const PassOps pass = add_forward_backward(r, job);
    std::vector<int> pushes(shards);
    for (int j = shards - 1; j >= 0; --j) {  // the last shard's gradients are ready first
      int ready = pass.last;
      double params = 0;
      for (size_t l = 0; l < split[j].size(); ++l) {
        params += split[j][l];
        if (split[j][l] > 0 && job.strategy.overlap && pass.backward[l] > ready) ready = pass.backward[l];
      }
      if (!job.strategy.overlap) ready = pass.last;
      // Posted: a worker pushes to every shard at once, as ps-lite and BytePS do.
      Op op = comm_op(r, fmt::format("push shard {}", j), Stream::Posted, {ready},
                      SendOp{first_server + j, params * grad_bytes, j});
      pushes[j] = op.id;
      r.ops.push_back(std::move(op));
    }
    for (int j = 0; j < shards; ++j) {
      const double params = std::accumulate(split[j].begin(), split[j].end(), 0.0);
      r.ops.push_back(comm_op(r, fmt::format("pull shard {}", j), Stream::Posted, {pushes[j]},
                              RecvOp{first_server + j, params * grad_bytes, shards + j}));
    }
  }
  for (int j = 0; j < shards; ++j) {
    const double params = std::accumulate(split[j].begin(), split[j].end(), 0.0);
    const int rank = first_server + j;
    plan.ranks.push_back(make_server(s, job, jp, j, rank, job_index, plan, params));
    jp.servers.push_back(rank);
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

Plan compile_plan(const Scenario& s, PlanScope scope) {
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
    place_workers(s, job, static_cast<int>(i), plan);
  }
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    const JobSpec& job = s.jobs[i];
    if (job.strategy.kind == StrategyKind::AllReduce) {
      compile_allreduce(s, job, plan.jobs[i], plan, scope == PlanScope::FirstWorkerOnly);
    } else {
      if (scope == PlanScope::FirstWorkerOnly) throw RuntimeError("plan: only AllReduce jobs compile one worker alone");
      compile_parameter_server(s, job, static_cast<int>(i), plan);
    }
  }
  return plan;
}

}  // namespace dtsim
