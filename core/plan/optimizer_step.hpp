// The optimizer step: what it reads and writes per parameter, and how many kernels issue it, by optimizer
// (model.optimizer) and by how its kernels run (framework.optimizer_kernels).
//
// Per parameter, in fp32 elements read plus written (x 4 bytes):
//   fused (apex multi_tensor_*.cu; torch.optim fused=True), one pass:
//     sgd 3 (read w, g; write w), momentum 5 (read g, w, v; write w, v), adam 7 (read g, w, m, v; write w, m, v),
//     lamb 12 (stage 1, the norms of the weights and of the update, stage 2: multi_tensor_lamb.cu).
//   foreach and per_tensor run the update as torch.optim writes it (PyTorch 1.11 torch/optim/_functional.py, weight
//   decay on), one elementwise op after the other, each reading and writing whole tensors:
//     sgd:      g' = g + wd w (3), w += -lr g' (3)                                          =  6 in 2 ops
//     momentum: g' = g + wd w (3), v *= mu (2), v += g' (3), w += -lr v (3)                 = 11 in 4 ops
//     adam:     g' = g + wd w (3), m *= b1 (2), m += (1-b1) g' (3), v *= b2 (2), v += (1-b2) g' g' (3),
//               d = sqrt(v) (2), d /= c2 (2), d += eps (2), w += -s m / d (4)                = 23 in 9 ops
//     lamb:     none (no torch.optim LAMB: every LAMB is a fused kernel; the scenario is refused).
// Kernels issued per step (`launches`): per_tensor, each op once per parameter tensor; foreach and fused, each
// multi-tensor kernel once per chunk of tensors, as aten/src/ATen/native/cuda/MultiTensorApply.cuh (and apex's
// multi_tensor_apply.cuh) splits them: at most depth_to_max_tensors[depth] = {110, 64, 48, 36, 30} tensors for
// 1..5 tensor lists, and at most 320 blocks of 65,536 elements, per launch:
//     launches(op) = max(ceil(T / max_tensors(depth)), ceil(P / (320 x 65,536))), at least 1,
// for P parameters in T tensors. The step lasts at least launches x framework.kernel_launch (models/cost).
#pragma once

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

// fp32 state copies per parameter the optimizer keeps (momentum 1, adam and lamb 2): the memory estimate's.
double optimizer_state_copies(Optimizer o);

// The step of `params` parameters held in `tensors` tensors.
UpdateOp make_update(double params, Optimizer o, OptimizerKernels kernels = OptimizerKernels::Fused,
                     double tensors = 1);

// The job's step over `params` of its parameters (a server's shard, or all of them): its optimizer and kernels,
// over the share of the job's parameter tensors that `params` is.
UpdateOp make_update(const JobSpec& job, double params);

// The parameter tensors of the job's model: for a transformer shape, the weights (and biases, with bias) of its GEMMs
// as dtsim runs them (one fused QKV per block), its norms' weights (and biases, for LayerNorm), its embeddings and an
// untied head; for a layer table, one weight per row holding parameters and a bias too for its norm and gemm rows
// (BatchNorm's and nn.Linear's; convolutions before a norm have none).
double parameter_tensors(const JobSpec& job);

}  // namespace dtsim
