// The plan compiler: every job of a scenario into one Plan, each on its own devices, by the kind of job it is
// (job_kind): an AllReduce, parameter-server or gossip data-parallel job (data_parallel/), a hybrid job
// (hybrid/), or a job replayed from Chakra traces (chakra/); then stragglers and gossip peers over the whole plan.
#include "core/plan/compiler.hpp"

#include <algorithm>
#include <atomic>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/plan/chakra/import.hpp"
#include "core/plan/data_parallel/allreduce.hpp"
#include "core/plan/data_parallel/gossip.hpp"
#include "core/plan/data_parallel/parameter_server.hpp"
#include "core/plan/hybrid/compile.hpp"
#include "core/plan/job_flops.hpp"
#include "core/plan/stragglers.hpp"

namespace dtsim {
namespace {

std::atomic<long> compilations{0};

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

}  // namespace

JobKind job_kind(const JobSpec& job) {
  if (!job.chakra.prefix.empty()) return JobKind::Chakra;
  if (job.sync.kind == SyncKind::Gossip) return JobKind::Gossip;
  switch (job.strategy.kind) {
    case StrategyKind::Hybrid: return JobKind::Hybrid;
    case StrategyKind::AllReduce: return JobKind::AllReduce;
    case StrategyKind::ParameterServer: return JobKind::ParameterServer;
  }
  return JobKind::ParameterServer;
}

bool has_representatives(JobKind kind) {
  switch (kind) {
    case JobKind::AllReduce:
    case JobKind::Hybrid: return true;
    case JobKind::ParameterServer:
    case JobKind::Gossip:
    case JobKind::Chakra: return false;
  }
  return false;
}

Plan compile_plan(const Scenario& s) { return compile_plan(s, PlanScope::AllRanks); }

Plan compile_plan(const Scenario& s, PlanScope scope) { return compile_plan(s, scope, PlanDetail::Kernels); }

bool has_representatives(const Scenario& s) {
  return std::all_of(s.jobs.begin(), s.jobs.end(), [](const JobSpec& j) { return has_representatives(job_kind(j)); });
}

long plans_compiled() { return compilations.load(); }

Plan compile_plan(const Scenario& s, PlanScope scope, PlanDetail detail) {
  ++compilations;
  Plan plan;
  plan.name = s.name;
  plan.iterations = s.run.iterations;
  plan.warmup = s.run.warmup;
  plan.jobs.resize(s.jobs.size());
  // Workers of every job first, then each job's servers: worker ranks follow the devices.
  std::vector<JobKind> kinds;
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    const JobSpec& job = s.jobs[i];
    kinds.push_back(job_kind(job));
    plan.jobs[i].name = job.name;
    plan.jobs[i].samples_per_iteration = static_cast<double>(job.workers(s.cluster)) * job.model.batch_per_worker;
    plan.jobs[i].compression = job.compression;
    plan.jobs[i].framework = job.framework;
    if (kinds[i] != JobKind::Chakra) place_workers(s, job, static_cast<int>(i), plan);
  }
  const bool representatives = scope == PlanScope::Representatives;
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    const JobSpec& job = s.jobs[i];
    const int index = static_cast<int>(i);
    if (representatives && !has_representatives(kinds[i])) {
      throw RuntimeError(fmt::format("plan: job {} ({}) has no representative ranks", job.name,
                                     kinds[i] == JobKind::Gossip ? "gossip" : "parameter server or Chakra traces"));
    }
    if (job.sync.kind == SyncKind::Backup) {
      // Only the N kept gradients of N + b count as samples.
      plan.jobs[i].samples_per_iteration =
          static_cast<double>(job.workers(s.cluster) - job.sync.backup_workers) * job.model.batch_per_worker;
    }
    switch (kinds[i]) {
      case JobKind::Chakra: compile_chakra(s, job, index, plan); break;  // the loader allows it as the only job
      case JobKind::Gossip: compile_gossip(job, index, plan); break;
      case JobKind::Hybrid: {
        const HybridSpec layout = job_layout(s, job);
        plan.jobs[i].samples_per_iteration = layout.micro_batch * layout.data * layout.micro_batches();
        compile_hybrid(s, job, index, plan, representatives, detail);
        plan.jobs[i].memory = job_memory(s, job);
        plan.jobs[i].device_memory = s.cluster.device_at(job.placement.first_node).mem_capacity;
        for (int n = job.placement.first_node; n < job.placement.first_node + job.node_count(s.cluster); ++n) {
          plan.jobs[i].device_memory = std::min(plan.jobs[i].device_memory, s.cluster.device_at(n).mem_capacity);
        }
        break;
      }
      case JobKind::AllReduce: compile_allreduce(s, job, plan.jobs[i], plan, representatives); break;
      case JobKind::ParameterServer: compile_parameter_server(s, job, index, plan); break;
    }
  }
  for (size_t i = 0; i < s.jobs.size(); ++i) set_job_flops(s, static_cast<int>(i), kinds[i], plan);
  apply_stragglers(s, plan);
  draw_gossip_peers(s, plan);
  return plan;
}

}  // namespace dtsim
