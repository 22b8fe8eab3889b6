// Small hand-built plans and clusters for the engine oracles.
#pragma once

#include <utility>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/plan/plan.hpp"

namespace dtsim::test {

// One op of a hand-built rank program.
inline Op op_of(int id, Stream stream, Phase phase, OpBody body, std::vector<int> deps = {}) {
  Op op;
  op.id = id;
  op.label = "op";
  op.stream = stream;
  op.phase = phase;
  op.body = std::move(body);
  op.deps = std::move(deps);
  return op;
}

// Rank `rank` alone on node `rank`, running `ops`.
inline RankProgram rank_of(int rank, std::vector<Op> ops) {
  RankProgram rp;
  rp.rank = rank;
  rp.where = Placement{rank, 0};
  rp.ops = std::move(ops);
  return rp;
}

// `nodes` nodes of one device each on a star, NIC rate `bw` and latency `alpha`, no switch latency.
inline ClusterSpec star_cluster(int nodes, double bw, double alpha) {
  ClusterSpec c;
  c.nodes = nodes;
  c.devices_per_node = 1;
  c.device = load_device("a100_40gb");
  c.efficiency = 0.5;
  c.intra = LinkSpec{300e9, 1e-6};
  c.nic = LinkSpec{bw, alpha};
  c.server_nic = LinkSpec{bw, alpha};
  c.server_device = load_device("cpu_socket");
  return c;
}

// n ranks, one per node, each running one collective of `bytes` with `algorithm`.
inline Plan one_collective(int n, double bytes, const std::string& algorithm, CollectiveKind kind) {
  Plan p;
  p.name = "one collective";
  p.iterations = 1;
  CommGroup g;
  for (int r = 0; r < n; ++r) g.ranks.push_back(r);
  p.jobs.push_back(JobPlan{"job", g.ranks, {}, static_cast<double>(n)});
  p.groups.push_back(g);
  for (int r = 0; r < n; ++r) {
    RankProgram rp;
    rp.rank = r;
    rp.where = Placement{r, 0};
    Op op;
    op.label = "collective";
    op.stream = Stream::Comm;
    op.phase = Phase::Communication;
    op.body = CollectiveOp{kind, bytes, 0, &find_algorithm(algorithm), 0};
    rp.ops.push_back(op);
    p.ranks.push_back(rp);
  }
  return p;
}

// n workers each pushing `bytes` to each of `shards` server ranks (one per dedicated host), then pulling back.
inline Plan incast(int n, int shards, double bytes) {
  Plan p;
  p.name = "incast";
  p.iterations = 1;
  p.jobs.push_back(JobPlan{"job", {}, {}, static_cast<double>(n)});
  for (int w = 0; w < n; ++w) p.jobs[0].workers.push_back(w);
  for (int j = 0; j < shards; ++j) p.jobs[0].servers.push_back(n + j);
  for (int w = 0; w < n; ++w) {
    RankProgram rp;
    rp.rank = w;
    rp.where = Placement{w, 0};
    for (int j = 0; j < shards; ++j) {
      Op op;
      op.id = static_cast<int>(rp.ops.size());
      op.label = "push";
      op.stream = Stream::Posted;
      op.phase = Phase::Communication;
      op.body = SendOp{n + j, bytes, j};
      rp.ops.push_back(op);
    }
    p.ranks.push_back(rp);
  }
  for (int j = 0; j < shards; ++j) {
    RankProgram rp;
    rp.rank = n + j;
    rp.role = Role::Server;
    rp.where = Placement{n + j, 0};
    for (int w = 0; w < n; ++w) {
      Op op;
      op.id = w;
      op.label = "recv";
      op.stream = Stream::Posted;
      op.phase = Phase::Communication;
      op.body = RecvOp{w, bytes, j};
      rp.ops.push_back(op);
    }
    p.ranks.push_back(rp);
  }
  return p;
}

}  // namespace dtsim::test
