// Model FLOPs as MFU counts them (the convention of published MFU figures), from the kernels transformer_ops.hpp
// lists: what core/plan/job_flops.hpp and dtsim tune measure MFU and HFU by.
#pragma once

#include "models/parallel/transformer_ops.hpp"
#include "models/zoo/kernel.hpp"
#include "models/zoo/transformer.hpp"

namespace dtsim {

// A kernel's FLOPs as MFU's model FLOPs count them (Chowdhery et al. 2022, appendix B; Narayanan et al. 2021,
// section 5.1; torchtitan and Megatron-LM report theirs so): a GEMM's, and a fused attention core's whole (a causal
// kernel computes about half of its products, which the convention counts all the same); no other kernel's.
double model_flops(KernelClass cls, double flops, const GemmShape& gemm);
// Forward and backward model FLOPs of one sequence through the whole model, unsplit and without recompute (MFU's
// numerator): three times the forward kernels' model_flops. A GPT's are 72 s l h^2 (1 + s/6h + V/12lh) (Narayanan).
double model_flops_per_sample(const TransformerSpec& m, double dtype_bytes);

}  // namespace dtsim
