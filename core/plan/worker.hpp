// Building blocks of rank programs: the forward/backward pass and the optimizer step.
#pragma once

#include <vector>

#include "core/plan/optimizer_step.hpp"
#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

struct PassOps {
  std::vector<int> backward;  // op id of each layer's backward
  int last = -1;              // the last backward op (layer 0)
};

// One layer-table row's forward or backward for `batch` samples: its FLOPs, its memory traffic (the
// row's traffic columns, or 2 x activations forward and 3 x backward, plus its weights), its kernel
// class and (implicit) GEMM shape (models/zoo/kernel.hpp).
ComputeOp layer_op(const Layer& layer, double batch, Dtype dtype, bool backward);

// Appends the job's framework.iteration_overhead as the first op on the compute stream (nothing when 0):
// every kernel of the iteration runs after it, in stream order.
void add_iteration_overhead(RankProgram& r, const JobSpec& job);

// Appends forward (layer 0..L-1) then backward (L-1..0) compute ops for one worker: one per row, or a
// transformer-shaped model's kernels (core/plan/transformer_pass.hpp).
PassOps add_forward_backward(RankProgram& r, const JobSpec& job);

// An op to append next in the rank's program (its id is the program's size).
Op new_op(RankProgram& r, std::string label, Stream stream, Phase phase, std::vector<int> deps, OpBody body);
// The same for a communication op.
Op comm_op(RankProgram& r, std::string label, Stream stream, std::vector<int> deps, OpBody body);

}  // namespace dtsim
