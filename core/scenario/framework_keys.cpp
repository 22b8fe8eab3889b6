// The `framework.*` job keys: host work per iteration, per kernel and per collective (defaults 0, off:
// the published figures below are for a user to set, not measured for every stack), the layout
// of a CNN's activations, mixed precision, attention kernels and their backend, optimizer kernels, ZeRO-3's backward
// prefetch, tensor-parallel communication overlap, and the preset naming a framework's defaults for the rest
// (framework_preset.hpp).
#include "core/scenario/framework_keys.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <span>
#include <utility>

#include "core/scenario/framework_preset.hpp"

namespace dtsim {
namespace {

using J = JobSpec;
using V = ScalarValue;

// A framework key that is one of `choices` (the first is its default) setting `field`.
template <typename E>
void add_choice(KeyTable& keys, std::string path, std::vector<std::pair<std::string, E>> choices, std::string doc,
                E FrameworkSpec::*field) {
  std::vector<std::string> names;
  for (const auto& [name, value] : choices) names.push_back(name);
  keys.job(std::move(path), fmt::format("one of: {}", fmt::join(names, ", ")), names.front(), std::move(doc),
           [choices, field](J& j, const V& v) { j.framework.*field = v.choice<E>(choices); });
}

}  // namespace

void add_framework_keys(KeyTable& keys) {
  keys.job("framework.iteration_overhead", "time", "0s",
           "Host work each worker does every iteration before its first kernel (data loading it waits for, the "
           "Python loop, zero_grad): a 'framework' op on its compute stream. 0: none (no published figure holds "
           "across frameworks; measure it with a profiler).",
           [](J& j, const V& v) { j.framework.iteration_overhead = v.quantity(Quantity::Time); });
  keys.job("framework.kernel_launch", "time", "0s",
           "The host's time to issue one kernel: a worker's compute op lasts at least this (the GPU cannot run ahead "
           "of the host). Published: 4.9us per CUDA launch from C, 2-8us per PyTorch eager op (docs/engines.md). 0: "
           "off.",
           [](J& j, const V& v) { j.framework.kernel_launch = v.quantity(Quantity::Time); });
  keys.job("framework.collective_launch", "time", "0s",
           "Fixed host cost of issuing each collective a worker takes part in (a DDP bucket's launch), before its "
           "transfers. 0: none (the collectives' own latency is the links' alpha).",
           [](J& j, const V& v) { j.framework.collective_launch = v.quantity(Quantity::Time); });
  add_choice<MemoryFormat>(
      keys, "framework.memory_format", {{"nhwc", MemoryFormat::Nhwc}, {"nchw", MemoryFormat::Nchw}},
      "How a CNN's activations are laid out (PyTorch's default is nchw; channels_last, TensorFlow and DALI "
      "pipelines are nhwc). nchw: every convolution in a tensor-core dtype (fp16, bf16, tf32) has its tensors "
      "transposed to NHWC and back, as cuDNN does ('NCHW-to-NHWC transformations', cuDNN Legacy API): each "
      "tensor read and written once more, as memory-bound 'transpose' kernels (docs/engines.md).",
      &FrameworkSpec::memory_format);
  add_choice<MixedPrecision>(
      keys, "framework.mixed_precision", {{"pure", MixedPrecision::Pure}, {"autocast", MixedPrecision::Autocast}},
      "How a 16-bit model.dtype (fp16, bf16) is kept; no effect in fp32 or tf32. pure: weights in 16 bits and an "
      "fp32 master copy in the optimizer (Megatron-LM, DeepSpeed, apex amp O2). autocast: PyTorch's torch.autocast "
      "over fp32 parameters: every forward casts each GEMM's weights and fp32 inputs to 16 bits, norms, softmax, "
      "the loss and the residual stream run in fp32, weight gradients are cast to fp32 and summed over "
      "micro-batches, all as memory-bound kernels (transformers; docs/engines.md, Mixed precision).",
      &FrameworkSpec::mixed_precision);
  add_choice<AttentionKernels>(
      keys, "framework.attention_kernels", {{"fused", AttentionKernels::Fused}, {"eager", AttentionKernels::Eager}},
      "How attention runs when model.transformer.flash_attention is false; no effect with flash attention. fused: "
      "Megatron-LM's fused scale-mask-softmax kernel between the batched QK^T and AV. eager: PyTorch modules as "
      "BERT's reference code writes them (NVIDIA DeepLearningExamples, Hugging Face's eager attention): the scale "
      "and the mask add as kernels of their own over the scores, and torch.matmul on permuted heads copying Q, K, "
      "V and the context to and from the heads' layout (4 copies of the tokens' activations forward, 4 backward), "
      "as 'layout_copy' kernels (docs/engines.md, Eager attention).",
      &FrameworkSpec::attention_kernels);
  add_choice<AttentionBackend>(
      keys, "framework.attention_backend", choices_from(attention_backends(), &AttentionBackendTraits::backend),
      "Which library's fused attention kernel runs when model.transformer.flash_attention is true; no effect "
      "without it. flash2: FlashAttention-2 (Dao-AILab/flash-attention 2.x, PyTorch's scaled_dot_product_attention "
      "flash backend). cudnn: cuDNN's fused flash attention (Transformer Engine's FusedAttention, which it prefers "
      "on Hopper; PyTorch's cuDNN backend). flash_triton: FlashAttention written in Triton (flash_attn_triton.py, "
      "llm-foundry's attn_impl: triton until 2024). Each runs at the device's figure for it and the kernel's pass, "
      "times a factor of its head dimension, sequence length and causal mask fitted on published measurements "
      "(models/zoo/attention.hpp; docs/engines.md, Framework overheads); a device with no figure for it runs flash2's.",
      &FrameworkSpec::attention_backend);
  add_choice<PointwiseKernels>(
      keys, "framework.pointwise_kernels",
      {{"fused", PointwiseKernels::Fused},
       {"eager", PointwiseKernels::Eager},
       {"compiled_blocks", PointwiseKernels::CompiledBlocks}},
      "How a transformer's RMSNorms, rotary embedding, SwiGLU and fp32 loss run (models/parallel/pointwise.hpp; "
      "docs/engines.md, Framework overheads). fused: one kernel each (Megatron-Core, Transformer Engine, apex). "
      "eager: op by op as PyTorch eager runs the module's code, each op reading its inputs and writing its output "
      "(torchtitan's Llama without torch.compile: an RMSNorm 36 bytes an element forward and 92 backward in bf16, "
      "against 4 and 10 fused), and the loss on logits cast to fp32. compiled_blocks: torch.compile on each "
      "transformer block (torchtitan's apply_compile): the blocks' fused, the final norm and the loss eager. "
      "LayerNorm and GELU are one kernel either way.",
      &FrameworkSpec::pointwise_kernels);
  add_choice<NormKernel>(
      keys, "framework.norm_kernel", {{"one_pass", NormKernel::OnePass}, {"two_pass", NormKernel::TwoPass}},
      "How a fused LayerNorm or RMSNorm reads its rows (models/parallel/pointwise.hpp; docs/engines.md, Framework "
      "overheads). "
      "one_pass: once, the row held in registers (Transformer Engine's tuned kernels, torch.compile). two_pass: once "
      "for the mean and variance and again to normalise, and its backward twice over the gradient and the input "
      "(PyTorch's native LayerNorm, apex's and Megatron-DeepSpeed's FusedLayerNorm): the second read comes from L2 "
      "while the rows in flight fit in it, else from memory (models/zoo/reread.hpp). No effect on an eager RMSNorm.",
      &FrameworkSpec::norm_kernel);
  add_choice<OptimizerKernels>(
      keys, "framework.optimizer_kernels",
      {{"fused", OptimizerKernels::Fused},
       {"foreach", OptimizerKernels::Foreach},
       {"per_tensor", OptimizerKernels::PerTensor}},
      "How the optimizer step's kernels run (docs/engines.md, Optimizer kernels). fused: one multi-tensor kernel "
      "reads and writes each parameter's weight, gradient and states once (apex FusedAdam/FusedSGD/FusedLAMB, "
      "torch.optim fused=True). foreach: torch.optim's multi-tensor path (foreach=True, PyTorch 2's default), every "
      "elementwise op of the update a pass over all parameters (Adam: 9 ops, 23 fp32 reads and writes a "
      "parameter against fused's 7). per_tensor: torch.optim's for-loop (PyTorch 1's default; reference "
      "optimizers such as DeepLearningExamples' BertAdam): the same ops, each a kernel per parameter tensor, so "
      "framework.kernel_launch counts once per op and tensor. lamb: fused only.",
      &FrameworkSpec::optimizer_kernels);
  add_choice<BackwardPrefetch>(
      keys, "framework.backward_prefetch", {{"pre", BackwardPrefetch::Pre}, {"post", BackwardPrefetch::Post}},
      "When ZeRO-3 (FSDP) gathers the next block's parameters in the backward. pre: once the current block's backward "
      "has begun, overlapping it (FSDP1's BACKWARD_PRE default, FSDP2). post: once it has ended, before its "
      "gradients' reduce-scatter on the same stream, so the next block's backward waits for the gather (FSDP1's "
      "BACKWARD_POST, Composer's default). Other layouts: no effect.",
      &FrameworkSpec::backward_prefetch);
  keys.job(
      "framework.tp_comm_overlap", "bool", "false",
      "Transformer Engine's userbuffers overlap of tensor parallelism's communication with its GEMMs (Megatron-Core's "
      "tp_comm_overlap, NeMo's MegatronCommOverlapCallback): each block's sequence-parallel all-gathers and "
      "reduce-scatters run beside the linear layer's GEMM they feed or follow, as TE's defaults run them (all-gathers "
      "by ring exchange in t pieces; reduce-scatters in 4 pieces forward and in bulk backward, holding 16 SMs from "
      "their GEMM): a pair lasts max(G', C) + min(G', C) / pieces (models/parallel/transformer_ops.hpp; "
      "docs/engines.md, Framework overheads). Takes effect with tensor > 1, sequence parallelism and the tensor group "
      "within a node; otherwise none, as NeMo's callback disables it.",
      [](J& j, const V& v) { j.framework.tp_comm_overlap = v.boolean(); });
  keys.job(
      "framework.fp8_param_gather", "bool", "false",
      "With model.fp8: the linear layers' weights are kept in fp8 (Transformer Engine's fp8_model_init: NeMo's "
      "fp8_params, Megatron-Core's fp8_param_gather), so the distributed optimizer's parameter all-gathers (ZeRO 1 "
      "and 2, after the step) and ZeRO-3's per-block gathers carry them in one byte; the embeddings, norms, biases "
      "and router stay in model.dtype. Without model.fp8: no effect.",
      [](J& j, const V& v) { j.framework.fp8_param_gather = v.boolean(); });
  add_choice<FrameworkPreset>(
      keys, "framework.preset", choices_from(framework_presets(), &PresetTraits::preset),
      "A training framework's defaults for the keys this scenario leaves unset (docs/engines.md, Framework presets): "
      "gradient reduce overlap and dtype, the optimizer's kernels, mixed precision and attention kernels as that "
      "framework sets them, each with its source. A key the scenario or --set gives wins over its preset.",
      &FrameworkSpec::preset);
}

}  // namespace dtsim
