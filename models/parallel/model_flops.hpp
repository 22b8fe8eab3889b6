// Model FLOPs as MFU counts them (the convention of published MFU figures), from the kernels transformer_ops.hpp
// lists: what core/plan/job_flops.hpp and dtsim tune measure MFU and HFU by.
#pragma once

#include "models/parallel/transformer_ops.hpp"
#include "models/zoo/kernel.hpp"
#include "models/zoo/transformer.hpp"

namespace dtsim {

// A kernel's FLOPs as MFU's model FLOPs count them (Chowdhery et al. 2022, appendix B; Narayanan et al. 2021,
// section 5.1; torchtitan and Megatron-LM report theirs so): a GEMM's, and a fused attention core's whole (a causal
// kernel computes about half of its products, which the convention counts all the same); no other kernel's. A
// sliding window's kernel (causal, its n keys fewer than its m queries: transformer_ops.hpp) counts each query's
// whole window, m x n, where it computes m keys(m, n) (models/zoo/attention.hpp): the convention with the window's
// w keys in place of the sequence's s (Megatron-Bridge's FLOP count, which halves the causal mask's s, likewise counts
// a windowed layer by the keys its queries see: NVIDIA-NeMo/Megatron-Bridge, training/utils/flop_utils.py).
double model_flops(KernelClass cls, double flops, const GemmShape& gemm);
// Forward and backward model FLOPs of one sequence through the whole model, unsplit and without recompute (MFU's
// numerator): three times the forward kernels' model_flops. A GPT's are 72 s l h^2 (1 + s/6h + V/12lh) (Narayanan);
// with a window of w on a share f of the blocks, f w + (1 - f) s in place of the s in s/6h.
double model_flops_per_sample(const TransformerSpec& m, double dtype_bytes);

}  // namespace dtsim
