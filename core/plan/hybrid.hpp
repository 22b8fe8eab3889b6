// Hybrid-parallel plans (strategy.kind: hybrid): a transformer split over tensor, context, expert,
// data and pipeline parallel ranks (core/parallel/), each rank running its pipeline schedule's
// forward and backward passes of its micro-batches, then the data-parallel gradient reduction
// (bucketed and overlapped with the last micro-batch's backward, or sharded by ZeRO) and its
// optimizer step.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/parallel/transformer_ops.hpp"
#include "core/plan/compiler.hpp"
#include "core/plan/hybrid_job.hpp"
#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

// Ranks of the job are placed already (plan.jobs[job_index].workers, one per device). With
// `representatives`, only the first rank of each pipeline stage gets its program. `detail`: how
// finely the work is split into ops (compiler.hpp).
void compile_hybrid(const Scenario& s, const JobSpec& job, int job_index, Plan& plan, bool representatives = false,
                    PlanDetail detail = PlanDetail::Kernels);

// The algorithm a hybrid job's collective of `kind` runs over `shape`: strategy.algorithm where it
// supports them, else ring, else direct.
const CollectiveAlgorithm& hybrid_algorithm(const CollectiveAlgorithm& preferred, CollectiveKind kind,
                                            const GroupShape& shape);

// The parameters of the last stage's output layer on one rank (its final norm and vocabulary projection, split over
// t): with one global stage and tied embeddings the projection is the embedding itself, counted there.
double output_params(const TransformerSpec& m, const ShardShape& sh, int global_stages);

// Megatron's optimizer step (MixedPrecisionOptimizer.step) on a rank owning `owned` of its `local` parameters: the
// unscale, overflow check and squared norm of its gradient shard (three passes), and the step with mixed precision's
// copies (core/plan/hybrid.cpp issues them; dtsim tune's closed form costs them; both in hybrid_work.cpp).
struct OptimizerWork {
  ComputeOp norm;
  UpdateOp step;
};
OptimizerWork optimizer_work(const JobSpec& job, double owned, double local);

// Whether job-local rank `local` represents its stage (its tensor, context, expert and data coordinates are 0).
bool represents_stage(const HybridLayout& layout, int local);

}  // namespace dtsim
