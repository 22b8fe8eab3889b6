// The framework presets' table (framework_preset.hpp). Each value is the framework's own default, or what its
// published recipes set, read at the commit named in bench/llm/sources/framework_presets.md (which quotes the lines).
#include "core/scenario/framework_preset.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>

#include "core/base/error.hpp"

namespace dtsim {
namespace {

// Megatron-LM's Megatron-Core (core_v0.9.0).
constexpr PresetSetting kMegatronCore[] = {
    {"strategy.allreduce.overlap", "false",
     "megatron/core/distributed/distributed_data_parallel_config.py L11-42: overlap_grad_reduce=False"},
    {"model.grad_dtype", "bf16",
     "the same file: grad_reduce_in_fp32=False, the gradient buffer in the parameters' dtype"},
    {"framework.optimizer_kernels", "fused",
     "megatron/core/optimizer/__init__.py L8-24: Transformer Engine's or apex's FusedAdam"},
    {"framework.mixed_precision", "pure",
     "megatron/core/optimizer/optimizer.py, MixedPrecisionOptimizer: 16-bit model parameters, fp32 main copies in the "
     "optimizer"},
    {"framework.attention_kernels", "fused",
     "megatron/core/fusions/fused_softmax.py: FusedScaleMaskSoftmax between QK^T and AV when attention is not one "
     "kernel"},
    {"framework.attention_backend", "cudnn",
     "Transformer Engine's DotProductAttention, which prefers its FusedAttention (cuDNN) over FlashAttention on Hopper "
     "(NVIDIA/TransformerEngine @ a0b36d0, transformer_engine/pytorch/attention/dot_product_attention/utils.py, "
     "get_attention_backend: 'Disabling FlashAttention to give FusedAttention preference on Hopper+'); on A100 "
     "FlashAttention-2 (the device zoo has no cudnn figure there: flash2's)"},
};

// bigscience-workshop/Megatron-DeepSpeed @ 8387ae1 with DeepSpeed's bf16 optimizer (v0.7.0), as BLOOM ran it.
constexpr PresetSetting kMegatronDeepSpeed[] = {
    {"strategy.allreduce.overlap", "false",
     "deepspeed/runtime/pipe/engine.py L65: enable_backward_allreduce=False; pipe/schedule.py L233-237: ReduceGrads "
     "after the pipeline's flush"},
    {"model.grad_dtype", "fp32",
     "deepspeed/runtime/bf16_optimizer.py L510-530: bf16 gradients summed into fp32 buffers, which are all-reduced"},
    {"framework.optimizer_kernels", "fused", "megatron/optimizer/__init__.py L16: apex FusedAdam"},
    {"framework.mixed_precision", "pure", "bf16_optimizer.py: bf16 model parameters, fp32 master partitions"},
    {"framework.attention_kernels", "fused",
     "megatron/model/fused_softmax.py: FusedScaleMaskSoftmax (megatron/arguments.py L541-551: on by default)"},
    {"framework.norm_kernel", "two_pass",
     "megatron/model/fused_layer_norm.py L69-76: MixedFusedLayerNorm, apex's kernel copied into "
     "megatron/fused_kernels/layer_norm_cuda_kernel.cu: cuApplyLayerNorm L291-333 reads a row for its mean and "
     "variance (cuWelfordMuSigma2) and again to normalise it, in blocks of 32 x 4 threads (L670)"},
};

// NVIDIA NeMo 2.0 (v2.0.0) recipes, on Megatron-Core.
constexpr PresetSetting kNemo[] = {
    {"strategy.allreduce.overlap", "true",
     "nemo/collections/llm/recipes/llama3_8b.py L116-122 (llama3_70b.py L115-121, gpt3_175b.py L113-119): "
     "overlap_grad_reduce=True, overlap_param_gather=True"},
    {"model.grad_dtype", "fp32",
     "the same lines: grad_reduce_in_fp32=True; recipes/precision/mixed_precision.py L23-31 (bf16_mixed)"},
    {"framework.optimizer_kernels", "fused",
     "recipes/optim/adam.py L45: Megatron-Core's distributed optimizer, its FusedAdam"},
    {"framework.mixed_precision", "pure", "bf16_mixed(): bf16 parameters, fp32 main copies (Megatron-Core)"},
    {"framework.attention_kernels", "fused", "Megatron-Core's FusedScaleMaskSoftmax, as megatron_core"},
    {"framework.attention_backend", "cudnn", "Transformer Engine's FusedAttention on Hopper, as megatron_core"},
    {"framework.tp_comm_overlap", "true",
     "recipes/llama3_70b.py L229-235, the performance path: MegatronCommOverlapCallback(tp_comm_overlap=True, "
     "tp_comm_overlap_cfg=userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192) (gpt3_175b.py L226-232 gives its own "
     "userbuffers cfg); the callback turns it "
     "off with TP < 2 or without sequence parallelism (nemo/lightning/pytorch/callbacks/megatron_comm_overlap.py @ "
     "03ec896, _apply_model_comm_overlap_cfgs), as the key does"},
    {"framework.fp8_param_gather", "true",
     "recipes/precision/mixed_precision.py L46-54: bf16_with_fp8_mixed() sets fp8_params=True, which the plugin "
     "passes on as Megatron-Core's fp8_param_gather=True (nemo/lightning/pytorch/plugins/mixed_precision.py "
     "L89-125); Megatron-Bridge's fp8 recipes set fp8_param_gather=True too (src/megatron/bridge/training/"
     "mixed_precision.py @ 0509780: bf16_with_fp8_delayed_scaling_mixed, bf16_with_fp8_current_scaling_mixed), and "
     "NVIDIA's MLPerf v4.0 GPT-3 FP8_PARAMS=True (config_common.sh), whose MegatronDistributedFusedAdam gathers "
     "fp8 parameters as bytes (nemo/core/optim/distributed_adam.py: param_sync_dtype=torch.uint8); no effect "
     "without model.fp8"},
};

// pytorch/torchtitan v0.1.0: FSDP2 (fully_shard) with its default mixed precision.
constexpr PresetSetting kTorchtitan[] = {
    {"strategy.allreduce.overlap", "true",
     "docs/fsdp.md L68-75: FSDP2 reduce-scatters each block's gradients in the backward, on its own stream"},
    {"model.grad_dtype", "fp32", "torchtitan/config_manager.py L229: mixed_precision_reduce='float32'"},
    {"framework.optimizer_kernels", "fused",
     "config_manager.py L139: implementation='fused'; torchtitan/components/optimizer.py L275-287: AdamW(fused=True)"},
    {"framework.mixed_precision", "pure",
     "parallelize.py L339: MixedPrecisionPolicy(param_dtype=bf16): the blocks compute on gathered bf16 parameters, "
     "no per-GEMM casts"},
    {"framework.pointwise_kernels", "eager",
     "torchtitan/models/llama3/model/model.py L276-277, L351: torch.nn.RMSNorm (PyTorch's composite rms_norm, op by "
     "op), L90-91 rotary through view_as_complex on x.float(), L237 w2(F.silu(w1(x)) * w3(x)); "
     "components/loss.py L20-21: cross_entropy on pred.float(); config_manager.py L235: compile=False "
     "(with it, infra/parallelize.py L301-310 compiles each TransformerBlock: compiled_blocks)"},
};

// PyTorch FSDP1 as MosaicML's Composer (v0.22.0) runs it for llm-foundry (v0.8.0).
constexpr PresetSetting kFsdp[] = {
    {"strategy.allreduce.overlap", "true",
     "torch/distributed/fsdp/_runtime_utils.py: each unit's reduce-scatter in its post-backward hook, on the "
     "post_backward stream"},
    {"model.grad_dtype", "fp32",
     "composer/trainer/mosaic_fsdp_utils.py L106-109: mixed_precision DEFAULT (Composer's default, "
     "dist_strategy.py L162) reduces in fp32"},
    {"framework.optimizer_kernels", "per_tensor",
     "composer/optim/decoupled_weight_decay.py L268: DecoupledAdamW's for-loop over the parameters, a kernel per op "
     "and tensor"},
    {"framework.attention_backend", "flash2",
     "llm-foundry's attn_impl: flash, the flash-attn 2 package (2.4.2 in its benchmarking script: "
     "bench/llm/sources/mpt.md)"},
    {"framework.pointwise_kernels", "fused",
     "llm-foundry's MPT: LayerNorm and GELU one kernel each, and its loss flash-attn's fused cross-entropy on the "
     "logits as they are (loss_fn fused_crossentropy by default: llmfoundry/models/mpt/modeling_mpt.py L724-730 @ "
     "b2a43a147; mosaic_gpt.py L510-515 @ 300cc5c58)"},
    {"framework.norm_kernel", "two_pass",
     "llm-foundry's MPT: norm_type low_precision_layernorm by default (llmfoundry/models/mpt/configuration_mpt.py L64 "
     "@ 57cdd2a), LPLayerNorm calling torch.nn.functional.layer_norm (llmfoundry/models/layers/norm.py L33-62): "
     "PyTorch's native kernel (aten/src/ATen/native/cuda/layer_norm_kernel.cu, vectorized_layer_norm_kernel: the "
     "statistics, then the row read again)"},
    {"framework.backward_prefetch", "post",
     "composer/trainer/dist_strategy.py L152: backward_prefetch='BACKWARD_POST' (PyTorch's own default is "
     "BACKWARD_PRE); no llm-foundry yaml sets it"},
};

// PyTorch DistributedDataParallel with automatic mixed precision (torch 2.x).
constexpr PresetSetting kPytorchDdp[] = {
    {"strategy.allreduce.overlap", "true",
     "torch/nn/parallel/distributed.py: the reducer all-reduces each bucket as its gradients are ready in the "
     "backward"},
    {"strategy.allreduce.bucket_size", "25MiB", "torch/nn/parallel/distributed.py: bucket_cap_mb=25 (MiB)"},
    {"model.grad_dtype", "fp32", "torch.autocast keeps the parameters, and so their gradients, in fp32"},
    {"framework.optimizer_kernels", "foreach",
     "torch/optim/optimizer.py, _default_to_fused_or_foreach: foreach on CUDA tensors by default since PyTorch 2.0"},
    {"framework.mixed_precision", "autocast", "PyTorch's AMP recipe: torch.autocast over fp32 parameters"},
    {"framework.pointwise_kernels", "eager",
     "eager PyTorch modules (no torch.compile in the DDP recipe): RMSNorm, rotary and SwiGLU as their ops, and "
     "torch.nn.CrossEntropyLoss, which torch.autocast runs in fp32 (torch/amp: cross_entropy among its float32 ops)"},
    {"framework.norm_kernel", "two_pass",
     "torch.nn.LayerNorm's native kernel (aten/src/ATen/native/cuda/layer_norm_kernel.cu: vectorized_layer_norm_kernel "
     "computes a row's statistics, then reads it again to normalise; layer_norm_grad_input_kernel reads dY and X "
     "twice), a block of 128 threads a row"},
};

constexpr std::optional<PresetTraits> entry(FrameworkPreset p) {
  switch (p) {
    case FrameworkPreset::None: return PresetTraits{p, "none", "none: dtsim's own defaults", {}};
    case FrameworkPreset::MegatronCore:
      return PresetTraits{p, "megatron_core", "Megatron-Core core_v0.9.0", kMegatronCore};
    case FrameworkPreset::MegatronDeepSpeed:
      return PresetTraits{p, "megatron_deepspeed", "Megatron-DeepSpeed with DeepSpeed 0.7 bf16", kMegatronDeepSpeed};
    case FrameworkPreset::Nemo: return PresetTraits{p, "nemo", "NeMo 2.0 recipes", kNemo};
    case FrameworkPreset::Torchtitan: return PresetTraits{p, "torchtitan", "torchtitan v0.1.0 (FSDP2)", kTorchtitan};
    case FrameworkPreset::Fsdp: return PresetTraits{p, "fsdp", "PyTorch FSDP1 under Composer v0.22", kFsdp};
    case FrameworkPreset::PytorchDdp: return PresetTraits{p, "pytorch_ddp", "PyTorch DDP with AMP", kPytorchDdp};
  }
  return std::nullopt;  // past the last preset
}

constexpr size_t count_presets() {
  size_t n = 0;
  while (entry(static_cast<FrameworkPreset>(n))) ++n;
  return n;
}

constexpr std::array<PresetTraits, count_presets()> kTable = [] {
  std::array<PresetTraits, count_presets()> table{};
  for (size_t i = 0; i < table.size(); ++i) table[i] = *entry(static_cast<FrameworkPreset>(i));
  return table;
}();

}  // namespace

std::span<const PresetTraits> framework_presets() { return kTable; }

const PresetTraits& framework_preset(FrameworkPreset p) {
  const auto i = static_cast<size_t>(p);
  if (i >= kTable.size()) throw RuntimeError(fmt::format("framework preset {} has no entry", i));
  return kTable[i];
}

}  // namespace dtsim
