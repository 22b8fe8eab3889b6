// The work each rank of a hybrid layout does beside its pipeline schedule, shared by the plan compiler
// (core/plan/hybrid/compile.cpp) and dtsim tune's closed form (sim/tune/layout_cost.cpp).
#pragma once

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"
#include "models/parallel/transformer_ops.hpp"

namespace dtsim {

// The parameters of the last stage's output layer on one rank (its final norm and vocabulary projection, split over
// t): with one global stage and tied embeddings the projection is the embedding itself, counted there.
double output_params(const TransformerSpec& m, const ShardShape& sh, int global_stages);

// Megatron's optimizer step (MixedPrecisionOptimizer.step) on a rank owning `owned` of its `local` parameters: the
// unscale, overflow check and squared norm of its gradient shard (three passes), and the step with mixed precision's
// copies (core/plan/hybrid/compile.cpp issues them; dtsim tune's closed form costs them).
struct OptimizerWork {
  ComputeOp norm;
  UpdateOp step;
};
OptimizerWork optimizer_work(const JobSpec& job, double owned, double local);

}  // namespace dtsim
