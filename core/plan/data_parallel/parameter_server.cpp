// Parameter-server plans under BSP, ASP and SSP. With compression, workers push compressed
// shards (the compressor's payload) and servers decompress them before aggregating; pulls stay dense.
#include "core/plan/data_parallel/parameter_server.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "core/plan/compress.hpp"
#include "core/plan/worker.hpp"

namespace dtsim {
namespace {

Placement server_placement(const Scenario& s, const JobSpec& job, int shard, Plan& plan) {
  if (s.cluster.server_placement == ServerPlacement::Dedicated)
    return Placement{s.cluster.nodes + plan.server_nodes++, 0};
  const int n = job.node_count(s.cluster);
  return Placement{job.placement.first_node + shard % n, s.cluster.devices_per_node + shard / n};
}

Op compute_op(RankProgram& r, std::string label, Phase phase, std::vector<int> deps, OpBody body) {
  return new_op(r, std::move(label), Stream::Compute, phase, std::move(deps), std::move(body));
}

// What a worker pushes for a shard: the compressor's payload, or the dense gradient.
double push_bytes(const JobSpec& job, double params) {
  const Tensor t = gradient_tensor(job, params);
  if (!compresses(job, params)) return t.n * t.elem_bytes;
  return find_compressor(job.compression.method).payload_bytes(t, job.compression);
}

// A server decodes the `contributions` compressed pushes it received before aggregating; returns
// the ops the aggregation waits on.
std::vector<int> decompressed(RankProgram& server, const JobSpec& job, double params, int contributions,
                              std::vector<int> recvs) {
  if (!compresses(job, params)) return recvs;
  const Compressor& c = find_compressor(job.compression.method);
  const Tensor t = gradient_tensor(job, params);
  const CodecWork work = scaled(c.decompress(t, job.compression, contributions), job.compression.cost_scale);
  server.ops.push_back(codec_op(server, fmt::format("decompress {}", c.name()), Stream::Compute, std::move(recvs), work,
                                codec_timing(c, t, job.compression, CodecStage::Decompress, contributions)));
  return {server.ops.back().id};
}

// BSP: receive every worker's push, aggregate, update once, send the parameters to everyone.
RankProgram bsp_server(const JobSpec& job, const JobPlan& jp, int shard, double params) {
  const int shards = job.strategy.ps_shards;
  const double bytes = params * dtype_bytes(job.model.grad_dtype);
  const auto workers = static_cast<int>(jp.workers.size());
  RankProgram server;
  std::vector<int> recvs;
  for (int w : jp.workers) {
    Op op = comm_op(server, fmt::format("recv grads r{}", w), Stream::Posted, {},
                    RecvOp{w, push_bytes(job, params), shard});
    recvs.push_back(op.id);
    server.ops.push_back(std::move(op));
  }
  recvs = decompressed(server, job, params, workers, recvs);
  // (N-1) additions per parameter; read N gradients, write one sum (fp32 accumulation).
  server.ops.push_back(compute_op(server, "aggregate", Phase::Aggregate, recvs,
                                  ComputeOp{(workers - 1) * params, (workers + 1) * params * 4.0, Dtype::Fp32}));
  const int update = static_cast<int>(server.ops.size());
  server.ops.push_back(compute_op(server, "optimizer step", Phase::Optimizer, {update - 1}, make_update(job, params)));
  for (int w : jp.workers) {
    server.ops.push_back(
        comm_op(server, fmt::format("send params r{}", w), Stream::Posted, {update}, SendOp{w, bytes, shards + shard}));
  }
  return server;
}

// ASP and SSP: one worker's push applied at once, the latest parameters sent back.
RankProgram async_server(const JobSpec& job, int worker, int shard, double params) {
  const int shards = job.strategy.ps_shards;
  const double bytes = params * dtype_bytes(job.model.grad_dtype);
  RankProgram server;
  server.serves = worker;
  server.ops.push_back(comm_op(server, fmt::format("recv grads r{}", worker), Stream::Posted, {},
                               RecvOp{worker, push_bytes(job, params), shard}));
  const std::vector<int> ready = decompressed(server, job, params, 1, {0});
  server.ops.push_back(
      compute_op(server, fmt::format("apply r{}", worker), Phase::Optimizer, ready, make_update(job, params)));
  const int apply = static_cast<int>(server.ops.size()) - 1;
  server.ops.push_back(comm_op(server, fmt::format("send params r{}", worker), Stream::Posted, {apply},
                               SendOp{worker, bytes, shards + shard}));
  return server;
}

}  // namespace

std::vector<std::vector<double>> shard_params(const Workload& w, int shards, PsSplit split) {
  const int layers = static_cast<int>(w.layers.size());
  std::vector<std::vector<double>> out(shards, std::vector<double>(layers, 0.0));
  if (split == PsSplit::ByLayer) {
    std::vector<double> load(shards, 0.0);
    std::vector<int> order(layers);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return w.layers[a].params > w.layers[b].params; });
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

void compile_parameter_server(const Scenario& s, const JobSpec& job, int job_index, Plan& plan) {
  JobPlan& jp = plan.jobs[job_index];
  const int shards = job.strategy.ps_shards;
  const bool async = job.sync.kind != SyncKind::Bsp;
  const auto workers = static_cast<int>(jp.workers.size());
  const double grad_bytes = dtype_bytes(job.model.grad_dtype);
  const auto split = shard_params(job.workload, shards, job.strategy.ps_split);
  const int first_server = static_cast<int>(plan.ranks.size());
  jp.asynchronous = async;
  jp.shards = shards;
  // The server rank a worker talks to for a shard.
  auto server_of = [&](int shard, int worker_index) {
    return first_server + (async ? shard * workers + worker_index : shard);
  };

  for (int wi = 0; wi < workers; ++wi) {
    RankProgram& r = plan.ranks[jp.workers[wi]];
    const PassOps pass = add_forward_backward(r, job);
    std::vector<int> pushes(shards);
    for (int j = shards - 1; j >= 0; --j) {  // the last shard's gradients are ready first
      // With overlap a shard is ready when the backward op of its first layer (in forward order)
      // has ended: the backward pass runs from the last layer to the first. Else after the whole pass.
      int ready = pass.last;
      if (job.strategy.ps_overlap) {
        for (size_t l = 0; l < split[j].size(); ++l) {
          if (split[j][l] > 0) {
            ready = pass.backward.at(l);
            break;
          }
        }
      }
      double params = 0;
      for (double p : split[j]) params += p;
      if (compresses(job, params)) {
        // Compressed on the comm stream (in shard order), pushed when done.
        const Compressor& c = find_compressor(job.compression.method);
        const Tensor t = gradient_tensor(job, params);
        const CodecWork work = scaled(c.compress(t, job.compression), job.compression.cost_scale);
        r.ops.push_back(codec_op(r, fmt::format("compress {} shard {}", c.name(), j), Stream::Comm, {ready}, work,
                                 codec_timing(c, t, job.compression, CodecStage::Compress, 1)));
        ready = r.ops.back().id;
      }
      // Posted: a worker pushes to every shard at once, as ps-lite and BytePS do.
      Op op = comm_op(r, fmt::format("push shard {}", j), Stream::Posted, {ready},
                      SendOp{server_of(j, wi), push_bytes(job, params), j});
      pushes[j] = op.id;
      r.ops.push_back(std::move(op));
    }
    std::vector<int> pull_deps = pushes;
    if (job.sync.kind == SyncKind::Ssp) {
      // Stale-synchronous: pull only while at most `staleness` iterations ahead of the slowest.
      Op gate = comm_op(r, fmt::format("staleness bound {}", job.sync.staleness), Stream::Posted, pushes,
                        GateOp{job_index, job.sync.staleness});
      gate.phase = Phase::Communication;
      pull_deps = {gate.id};
      r.ops.push_back(std::move(gate));
    }
    for (int j = 0; j < shards; ++j) {
      const double params = std::accumulate(split[j].begin(), split[j].end(), 0.0);
      std::vector<int> deps = job.sync.kind == SyncKind::Ssp ? pull_deps : std::vector<int>{pushes[j]};
      r.ops.push_back(comm_op(r, fmt::format("pull shard {}", j), Stream::Posted, deps,
                              RecvOp{server_of(j, wi), params * grad_bytes, shards + j}));
    }
  }
  for (int j = 0; j < shards; ++j) {
    const double params = std::accumulate(split[j].begin(), split[j].end(), 0.0);
    const Placement where = server_placement(s, job, j, plan);
    for (int wi = 0; wi < (async ? workers : 1); ++wi) {
      RankProgram server = async ? async_server(job, jp.workers[wi], j, params) : bsp_server(job, jp, j, params);
      server.rank = server_of(j, wi);
      server.job = job_index;
      server.shard = j;
      server.role = Role::Server;
      server.where = where;
      jp.servers.push_back(server.rank);
      plan.ranks.push_back(std::move(server));
    }
  }
}

}  // namespace dtsim
