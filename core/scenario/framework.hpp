// What the training framework itself costs, beside the kernels and the transfers (the job's
// framework.* keys; docs/engines.md, Framework overheads).
#pragma once

#include "models/parallel/pointwise.hpp"
#include "models/zoo/attention.hpp"

namespace dtsim {

// The training framework's own costs (framework.*; docs/engines.md, Framework overheads): host work
// each iteration outside the kernels, the host's time to issue one kernel (a kernel lasts at least
// that: the GPU cannot run ahead of the host), and the fixed cost of launching a collective.
// How a CNN's activations are laid out in memory. Tensor cores convolve NHWC tensors: cuDNN transposes
// NCHW ones to NHWC before a tensor-core convolution and its result back (cuDNN Legacy API, "Data and
// Filter Formats": "padding, folding, and NCHW-to-NHWC transformations").
enum class MemoryFormat { Nhwc, Nchw };

// How a 16-bit model.dtype is kept. Pure: the weights are held in the 16-bit dtype and the optimizer
// keeps an fp32 master copy (Megatron-LM, DeepSpeed, apex amp O2). Autocast: PyTorch's torch.autocast over
// fp32 parameters: each GEMM casts its fp32 weights and inputs to 16 bits every forward, norms, softmax,
// the loss and the residual stream stay in fp32, and weight gradients are cast back to fp32 and summed into
// fp32 .grad (models/parallel/transformer_ops.hpp, Autocast).
enum class MixedPrecision { Pure, Autocast };

// How attention runs when it is not one fused kernel (model.transformer.flash_attention false). Fused:
// Megatron-LM's fused scale-mask-softmax kernel between the batched QK^T and AV. Eager: PyTorch modules as
// BERT's reference code writes them (NVIDIA DeepLearningExamples and Hugging Face modeling_bert.py): the scale
// and the mask as kernels of their own, and torch.matmul on permuted heads, which copies Q, K, V and the
// context between the tokens' layout and the heads' (models/parallel/transformer_ops.hpp, Eager attention).
enum class AttentionKernels { Fused, Eager };

// How the optimizer step's kernels run (core/plan/optimizer_step.hpp). Fused: one multi-tensor kernel reads each
// parameter's gradient, weight and states once and writes the weight and states once (apex's FusedAdam, FusedSGD,
// FusedLAMB; torch.optim with fused=True). Foreach: torch.optim's multi-tensor path (foreach=True, PyTorch 2's
// default), each elementwise op of the update one multi-tensor kernel over every parameter. PerTensor: torch.optim's
// for-loop (PyTorch 1's default, and reference optimizers such as DeepLearningExamples' BertAdam), each op one
// kernel per parameter tensor.
enum class OptimizerKernels { Fused, Foreach, PerTensor };

// When ZeRO-3 gathers the next block's parameters in the backward (FSDP's backward_prefetch). Pre: as soon as the
// current block's backward has begun, so the gather overlaps its compute (FSDP1's BACKWARD_PRE default; FSDP2 always).
// Post: once the current block's backward has ended, ahead of its gradients' reduce-scatter, so the next block's
// backward waits for its gather (FSDP1's BACKWARD_POST, Composer's default: torch/distributed/fsdp/api.py,
// BackwardPrefetch).
enum class BackwardPrefetch { Pre, Post };

// A training framework's defaults (framework.preset; core/scenario/framework_preset.hpp): none sets nothing.
enum class FrameworkPreset { None, MegatronCore, MegatronDeepSpeed, Nemo, Torchtitan, Fsdp, PytorchDdp };

struct FrameworkSpec {
  bool operator==(const FrameworkSpec&) const = default;
  double iteration_overhead = 0;  // seconds per iteration on each worker, before its first kernel
  double kernel_launch = 0;       // seconds: the shortest a worker's compute op can take
  double collective_launch = 0;   // seconds added to each collective a worker issues
  MemoryFormat memory_format = MemoryFormat::Nhwc;
  MixedPrecision mixed_precision = MixedPrecision::Pure;
  AttentionKernels attention_kernels = AttentionKernels::Fused;
  AttentionBackend attention_backend = AttentionBackend::Flash2;  // which fused kernel flash attention runs
  PointwiseKernels pointwise_kernels = PointwiseKernels::Fused;   // norms, rotary, SwiGLU, loss (pointwise.hpp)
  NormKernel norm_kernel = NormKernel::OnePass;                   // a fused norm's passes over its rows (pointwise.hpp)
  OptimizerKernels optimizer_kernels = OptimizerKernels::Fused;
  BackwardPrefetch backward_prefetch = BackwardPrefetch::Pre;
  // Transformer Engine's userbuffers overlap of the sequence-parallel all-gathers and reduce-scatters with their
  // GEMMs (Megatron-Core's tp_comm_overlap; models/parallel/transformer_ops.hpp, TP communication overlap).
  bool tp_comm_overlap = false;
  // With model.fp8: the linear layers' weights kept in fp8 (Transformer Engine's fp8_model_init; NeMo's fp8_params,
  // Megatron-Core's fp8_param_gather), so ZeRO's parameter all-gathers carry them in one byte (param_gather_bytes).
  bool fp8_param_gather = false;
  FrameworkPreset preset = FrameworkPreset::None;
};

}  // namespace dtsim
