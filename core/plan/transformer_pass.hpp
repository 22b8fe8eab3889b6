// A transformer-shaped model's forward and backward in the plans of data-parallel strategies
// (allreduce, parameter server, gossip): each row of its layer table (make_transformer's embed,
// attn_I, mlp_I or moe_I, pooler or ln_f, lm_head) runs as the kernels that make it up
// (models/parallel/transformer_ops.hpp on a rank with no tensor, context or expert parallelism), so its
// GEMMs, attention core and memory-bound kernels each cost what their class does (models/zoo/kernel.hpp)
// instead of one fraction of peak, as in hybrid plans. Every kernel is an op of its row (Op::layer);
// a row's gradients are ready when its last backward kernel ends.
#pragma once

#include "core/plan/worker.hpp"
#include "models/parallel/transformer_ops.hpp"

namespace dtsim {

// A compute kernel's op: its FLOPs, bytes, class, GEMM shape and second read, in its own dtype or `model_dtype`.
ComputeOp kernel_op(const KernelStep& k, Dtype model_dtype);

// Appends forward (embed .. lm_head) then backward (lm_head .. embed) kernel ops for one worker of a
// job whose model has a transformer shape (ModelSpec::is_transformer).
PassOps add_transformer_pass(RankProgram& r, const JobSpec& job);

}  // namespace dtsim
