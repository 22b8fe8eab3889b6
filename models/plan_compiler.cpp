// Data-parallel plans: every worker runs forward and backward; gradients are combined by
// bucketed AllReduce (DDP-style overlap) or pushed to parameter-server shards and pulled back.
#include "models/plan_compiler.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "models/plan_worker.hpp"

namespace dtsim {
namespace {

std::vector<RankProgram> place_workers(const Scenario& s) {
  std::vector<RankProgram> ranks(s.workers());
  for (int w = 0; w < s.workers(); ++w) {
    ranks[w].rank = w;
    ranks[w].role = Role::Worker;
    ranks[w].where = Placement{w / s.cluster.devices_per_node, w % s.cluster.devices_per_node};
  }
  return ranks;
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

void compile_allreduce(const Scenario& s, Plan& plan) {
  const double grad_bytes = dtype_bytes(s.model.grad_dtype);
  const auto buckets = gradient_buckets(s.workload, grad_bytes, s.strategy.bucket_size);
  const CollectiveAlgorithm& algorithm = find_algorithm(s.strategy.algorithm);
  CommGroup all;
  for (int w = 0; w < plan.worker_count; ++w) all.ranks.push_back(w);
  const int dpn = s.cluster.devices_per_node;
  all.per_node = (plan.worker_count % dpn == 0) ? std::min(dpn, plan.worker_count) : 1;
  plan.groups.push_back(all);

  for (auto& r : plan.ranks) {
    const PassOps pass = add_forward_backward(r, s);
    std::vector<int> update_deps{pass.last};
    for (size_t b = 0; b < buckets.size(); ++b) {
      double params = 0;
      for (int l : buckets[b]) params += s.workload.layers[l].params;
      const int ready = s.strategy.overlap ? pass.backward[buckets[b].back()] : pass.last;
      Op op = comm_op(r, fmt::format("allreduce bucket {}", b), Stream::Comm, {ready},
                      CollectiveOp{CollectiveKind::AllReduce, params * grad_bytes, 0, &algorithm,
                                   static_cast<int>(b)});
      update_deps.push_back(op.id);
      r.ops.push_back(std::move(op));
    }
    Op update;
    update.id = static_cast<int>(r.ops.size());
    update.label = "optimizer step";
    update.phase = Phase::Optimizer;
    update.deps = update_deps;
    update.body = make_update(s.workload.total_params(), s.model.optimizer);
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

void compile_parameter_server(const Scenario& s, Plan& plan) {
  const int shards = s.strategy.ps_shards;
  const int workers = plan.worker_count;
  const double grad_bytes = dtype_bytes(s.model.grad_dtype);
  const auto split = shard_params(s.workload, shards, s.strategy.ps_split);
  const bool dedicated = s.cluster.server_placement == ServerPlacement::Dedicated;
  plan.server_count = shards;
  plan.server_nodes = dedicated ? shards : 0;

  for (auto& r : plan.ranks) {
    const PassOps pass = add_forward_backward(r, s);
    std::vector<int> pushes(shards);
    for (int j = shards - 1; j >= 0; --j) {  // the last shard's gradients are ready first
      int ready = pass.last;
      double params = 0;
      for (size_t l = 0; l < split[j].size(); ++l) {
        params += split[j][l];
        if (split[j][l] > 0 && s.strategy.overlap && pass.backward[l] > ready) ready = pass.backward[l];
      }
      if (!s.strategy.overlap) ready = pass.last;
      Op op = comm_op(r, fmt::format("push shard {}", j), Stream::Comm, {ready},
                      SendOp{workers + j, params * grad_bytes, j});
      pushes[j] = op.id;
      r.ops.push_back(std::move(op));
    }
    for (int j = 0; j < shards; ++j) {
      const double params = std::accumulate(split[j].begin(), split[j].end(), 0.0);
      r.ops.push_back(comm_op(r, fmt::format("pull shard {}", j), Stream::Posted, {pushes[j]},
                              RecvOp{workers + j, params * grad_bytes, shards + j}));
    }
  }

  for (int j = 0; j < shards; ++j) {
    RankProgram server;
    server.rank = workers + j;
    server.role = Role::Server;
    server.where = dedicated ? Placement{s.cluster.nodes + j, 0}
                             : Placement{j % s.cluster.nodes, s.cluster.devices_per_node + j / s.cluster.nodes};
    const double params = std::accumulate(split[j].begin(), split[j].end(), 0.0);
    const double bytes = params * grad_bytes;
    std::vector<int> recvs;
    for (int w = 0; w < workers; ++w) {
      Op op = comm_op(server, fmt::format("recv grads w{}", w), Stream::Posted, {}, RecvOp{w, bytes, j});
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
    update.body = make_update(params, s.model.optimizer);
    server.ops.push_back(std::move(update));
    const int update_id = update.id;
    for (int w = 0; w < workers; ++w) {
      server.ops.push_back(comm_op(server, fmt::format("send params w{}", w), Stream::Posted, {update_id},
                                   SendOp{w, bytes, shards + j}));
    }
    plan.ranks.push_back(std::move(server));
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

Plan compile_plan(const Scenario& s) {
  Plan plan;
  plan.name = s.name;
  plan.worker_count = s.workers();
  plan.iterations = s.run.iterations;
  plan.warmup = s.run.warmup;
  plan.samples_per_iteration = static_cast<double>(s.workers()) * s.model.batch_per_worker;
  plan.ranks = place_workers(s);
  if (s.strategy.kind == StrategyKind::AllReduce) {
    compile_allreduce(s, plan);
  } else {
    compile_parameter_server(s, plan);
  }
  return plan;
}

}  // namespace dtsim
