#include "core/plan/job_flops.hpp"

#include <algorithm>
#include <map>
#include <variant>

#include "core/base/dtype.hpp"
#include "models/parallel/model_flops.hpp"

namespace dtsim {

namespace {

// The model FLOPs of one rank's recompute ops in one iteration, a composite's parts included (an op of period H runs
// one iteration in H).
double recompute_flops(const Plan& plan, const RankProgram& r) {
  double flops = 0;
  const auto add = [&flops](const Op& op) {
    const auto* c = std::get_if<ComputeOp>(&op.body);
    if (c && op.phase == Phase::Recompute) flops += model_flops(c->cls, c->flops, c->gemm) / std::max(1, op.period);
  };
  for (const Op& op : r.ops) {
    const auto* c = std::get_if<ComputeOp>(&op.body);
    if (!c || c->composite < 0) {
      add(op);
      continue;
    }
    for (const Op& part : plan.composites[static_cast<size_t>(c->composite)].parts) add(part);
  }
  return flops;
}

// Recompute's model FLOPs over the job's workers in one iteration. Per pipeline stage (-1 for data-parallel
// workers), the mean over the workers that have a program, times the stage's workers: every worker in a plan of all
// ranks; each stage's representatives standing for the stage in a plan of representatives.
double job_recompute_flops(const Plan& plan, const JobPlan& jp) {
  struct Stage {
    int workers = 0, programmed = 0;
    double flops = 0;
  };
  std::map<int, Stage> stages;
  for (const int w : jp.workers) {
    const RankProgram& r = plan.ranks[static_cast<size_t>(w)];
    Stage& st = stages[r.stage];
    ++st.workers;
    if (r.ops.empty()) continue;
    ++st.programmed;
    st.flops += recompute_flops(plan, r);
  }
  double total = 0;
  for (const auto& [stage, st] : stages) {
    if (st.programmed > 0) total += st.flops / st.programmed * st.workers;
  }
  return total;
}

}  // namespace

void set_job_flops(const Scenario& s, int job, JobKind kind, Plan& plan) {
  if (kind == JobKind::Chakra) return;
  const JobSpec& spec = s.jobs[static_cast<size_t>(job)];
  JobPlan& jp = plan.jobs[static_cast<size_t>(job)];
  jp.model_flops_per_sample = kind == JobKind::Hybrid
                                  ? model_flops_per_sample(spec.model.transformer, dtype_bytes(spec.model.dtype))
                                  : spec.workload.fwd_flops_per_sample() + spec.workload.bwd_flops_per_sample();
  jp.recompute_flops_per_iteration = job_recompute_flops(plan, jp);
  jp.tokens_per_sample = spec.model.is_transformer ? spec.model.transformer.seq_len : 0;
  jp.devices = static_cast<int>(jp.workers.size());
  jp.peak_flops = 0;
  for (const int w : jp.workers) {
    jp.peak_flops += s.cluster.device_at(plan.ranks[static_cast<size_t>(w)].where.node).peak(spec.model.dtype);
  }
}

}  // namespace dtsim
