// Gossip plans: forward and backward on the compute stream; the pairwise model exchange with the
// iteration's peer on the comm stream (from the iteration's start, or after backward without
// overlap); the average (x + x_peer) / 2; the local optimizer step. No op waits for another worker.
#include "core/plan/data_parallel/gossip.hpp"

#include <random>

#include <fmt/format.h>

#include "core/plan/worker.hpp"

namespace dtsim {

void compile_gossip(const JobSpec& job, int job_index, Plan& plan) {
  JobPlan& jp = plan.jobs[job_index];
  jp.asynchronous = true;
  const double params = job.workload.total_params();
  const double bytes = params * dtype_bytes(job.model.grad_dtype);
  for (int rank : jp.workers) {
    RankProgram& r = plan.ranks[rank];
    const PassOps pass = add_forward_backward(r, job);
    const std::vector<int> after = job.strategy.overlap ? std::vector<int>{} : std::vector<int>{pass.last};
    r.ops.push_back(comm_op(r, "gossip with a random peer", Stream::Comm, after, GossipOp{bytes}));
    const int exchange = r.ops.back().id;
    // x = (x + x_peer) / 2: read both models, write one.
    r.ops.push_back(new_op(r, "average with peer", Stream::Compute, Phase::Optimizer, {pass.last, exchange},
                           ComputeOp{params, 3 * bytes, Dtype::Fp32}));
    const int average = r.ops.back().id;
    r.ops.push_back(
        new_op(r, "optimizer step", Stream::Compute, Phase::Optimizer, {average}, make_update(job, params)));
  }
}

void draw_gossip_peers(const Scenario& s, Plan& plan) {
  const int total = plan.warmup + plan.iterations;
  for (size_t j = 0; j < s.jobs.size(); ++j) {
    if (s.jobs[j].sync.kind != SyncKind::Gossip) continue;
    if (plan.gossip_peer.empty()) plan.gossip_peer.assign(plan.ranks.size(), std::vector<int>(total, -1));
    // Another stream than the stragglers' (seed * 1000003 + job), so adding gossip changes no slowdown.
    std::mt19937_64 rng(static_cast<unsigned long>(s.run.seed) * 1000003UL + j + 0x9e3779b97f4a7c15UL);
    const auto& workers = plan.jobs[j].workers;
    const int n = static_cast<int>(workers.size());
    std::uniform_int_distribution<int> other(1, n - 1);
    for (int w = 0; w < n; ++w) {
      for (int k = 0; k < total; ++k) plan.gossip_peer[workers[w]][k] = workers[(w + other(rng)) % n];
    }
  }
}

}  // namespace dtsim
