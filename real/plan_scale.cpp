// Scaling the FLOPs and bytes of a Plan's ops.
#include "real/plan_scale.hpp"

#include <algorithm>

namespace dtsim::real {

double max_rank_flops(const Plan& plan) {
  double most = 0;
  for (const RankProgram& r : plan.ranks) {
    double sum = 0;
    for (const Op& op : r.ops) sum += op_flops(op.body);
    most = std::max(most, sum);
  }
  return most;
}

double auto_compute_scale(const Plan& plan) {
  const double most = max_rank_flops(plan);
  return most > kAutoFlopsPerRank ? kAutoFlopsPerRank / most : 1.0;
}

void scale_plan(Plan& plan, double compute_scale, double comm_scale) {
  // The memory model's bytes follow the model's size: every category scales with the bytes.
  for (JobPlan& job : plan.jobs) {
    for (StageMemory& stage : job.memory) {
      for (double* b : {&stage.bytes.parameters, &stage.bytes.gradients, &stage.bytes.optimizer,
                        &stage.bytes.activations, &stage.bytes.communication})
        *b *= comm_scale;
    }
  }
  for (RankProgram& r : plan.ranks) {
    for (Op& op : r.ops.edit()) {
      if (auto* c = std::get_if<ComputeOp>(&op.body)) {
        c->flops *= compute_scale;
        c->mem_bytes *= compute_scale;
      } else if (auto* u = std::get_if<UpdateOp>(&op.body)) {
        u->flops *= compute_scale;
        u->mem_bytes *= compute_scale;
        u->params *= comm_scale;
      } else if (auto* col = std::get_if<CollectiveOp>(&op.body)) {
        col->bytes *= comm_scale;
      } else if (auto* s = std::get_if<SendOp>(&op.body)) {
        s->bytes *= comm_scale;
      } else if (auto* rv = std::get_if<RecvOp>(&op.body)) {
        rv->bytes *= comm_scale;
      }
    }
  }
}

}  // namespace dtsim::real
