// A transformer's work for one micro-batch on one rank of a hybrid layout: the kernels of each
// block (attention, then MLP or MoE), of the embedding and of the output layer, in the order they
// run, with the tensor-, context- and expert-parallel collectives between them. Costs are per rank:
// matrices split over t (Megatron column/row parallel: Shoeybi et al. 2019), the sequence over c,
// experts over e. FLOPs count executed work (2 per multiply-add).
//
// Forward of one block, b sequences of s tokens (local T = b s / c tokens), hidden h, a heads of
// size h/a, kv key/value heads, ffn f (SwiGLU: gate and up, 2f):
//   ln1 | [SP: all-gather T h] | qkv 2 T h (h + 2 kv h/a)/t | attention core | proj 2 T h^2/t |
//   [all-reduce T h, SP: reduce-scatter] | dropout+residual | ln2 | [SP: all-gather] |
//   fc1 2 T h f/t (SwiGLU 4 T h f/t) | activation | fc2 2 T f h/t | [all-reduce, SP: reduce-scatter] |
//   dropout+residual
// Attention core: flash (one kernel, 4 T s h/t FLOPs, half of it skipped by the causal mask) or
// separate kernels (Megatron 2022: QK^T 2 T s h/t, scale-mask-softmax and dropout over the a/t x
// T x s scores, memory-bound, AV 2 T s h/t). Context parallel gathers K and V over the c ranks.
// Sliding window (TransformerSpec::window w < s on a share f = window_layers of the blocks): flash runs a windowed
// block's core as 4 T keys(s, w) h/t FLOPs (keys: causal_keys_per_query in models/zoo/attention.hpp, the band the
// mask leaves), its QK^T shape s queries by w keys, whose efficiency follows the w keys a query tile spans, not the
// sequence's s (attention_shape_factor, same file). dtsim's blocks are all alike, so each block runs two flash kernels,
// "attention" and "window attention", with (1 - f) and f of a full and a windowed block's FLOPs and bytes: the block
// costs the f-weighted mean of the two in FLOPs and, their time being max(FLOPs, bytes) at a rate set by the shape, in
// time (each still lasts at least framework.kernel_launch). Separate kernels (flash_attention: false, either
// framework.attention_kernels) keep the full cost: Hugging Face's eager and sdpa-math paths and Megatron's unfused path
// compute every score and mask those outside the window. Context parallelism with a window is refused
// (models/parallel/layout_rules.hpp): how its ranks share a window's keys depends on the implementation. MoE: router 2
// T h E, then an all-to-all dispatch over the e ranks of T k h bytes (x capacity factor), the local experts' MLPs on T
// k tokens (x capacity factor), an all-to-all combine. Backward: twice each GEMM's FLOPs (input and weight gradients),
// flash attention 2.5x (it recomputes the scores), memory-bound kernels twice their traffic (norms: 5 passes, their
// weight gradient a second kernel over x and dy); each forward all-gather is a reduce-scatter backward and vice versa,
// and each forward identity before a column-parallel GEMM an all-reduce of the input gradient. Per block fwd+bwd: 4
// all-reduces of T h (or 4 all-gathers and 4 reduce-scatters with SP), the closed form of Korthikanti et al. 2022,
// section 4.2.2.
//
// Biases (TransformerSpec::bias): each biased GEMM's backward adds a memory-bound reduction of its output gradient
// (qkv and fc1 over the rank's T tokens, the row-parallel proj and fc2, whose biases follow the reduction, over its
// T / t sequence-parallel share).
//
// Autocast (PyTorch's torch.autocast over fp32 parameters, 16-bit compute; ShardShape::autocast): the
// residual stream, the norms and softmax run in fp32 (the loss too when it is PyTorch's: pointwise.hpp) ("CUDA Ops that
// can autocast to float32": layer_norm, softmax, cross_entropy; a 16-bit GEMM output added to the fp32 residual
// promotes to fp32), and every GEMM casts what is not 16-bit: its weights each forward (4 + B bytes a parameter, B the
// 16-bit size) and its fp32 input (qkv, fc1, the router, the output layer: 4 + B bytes an element; unfused attention's
// fp32 probabilities before AV, and its 16-bit scores cast up for the fp32 softmax). A cast's backward casts the
// gradient back (the same traffic, not twice); a weight cast's backward casts the weight gradient to fp32 (B + 4 bytes
// a parameter) and, on every micro-batch after the first, adds it to .grad (12 bytes: spread evenly over the
// micro-batches, (m - 1) / m of it on each). Collectives keep B bytes an element (autocast with tensor parallelism is
// not what frameworks run).
//
// Eager attention (ShardShape::eager_attention, separate kernels only; framework.attention_kernels): as
// BERT's reference PyTorch code runs it (NVIDIA DeepLearningExamples modeling.py, BertSelfAttention):
//   copy Q, K, V to the heads' layout | QK^T | scale | + mask | softmax | dropout | AV | copy the context back
// torch.matmul cannot batch a permuted view of the heads, so it copies each of Q, K and V (T h / t and
// K, V's kv_dim each, read and written once) and `.contiguous()` copies the context; backward copies their
// gradients the other way (the same traffic each). The scale and the mask add each read and write the
// a/t x T x s scores (16-bit; under autocast the fp32 mask promotes the sum to fp32, which is the scores'
// cast up); backward: the scale's gradient (one read and one write), the mask add's none (autocast: the
// gradient's cast back to 16 bits). Layout copies cost as KernelClass::LayoutCopy.
//
// FP8 (ShardShape::fp8; model.fp8), as Transformer Engine runs Megatron-Core's and NeMo's layers (TE v1.11,
// transformer_engine/pytorch/module/; bench/llm/sources/framework_presets.md, section 4): the linear layers (qkv,
// proj, fc1, fc2 and the experts') run their forward, input-gradient and weight-gradient GEMMs on fp8 operands
// (1 byte an element, the result in the model's dtype) at the device's fp8 peak; attention, the router and the
// output layer stay in the model's dtype. Before each such GEMM one cast kernel writes its input as fp8 and
// the transpose the weight gradient needs (fp8_cast_transpose_fused: B bytes read, 2 written an element; the
// input's B is 4 where autocast keeps it in fp32), and the weights likewise once an optimizer step (TE caches
// them over the micro-batches: 1/m of it on each micro-batch); its backward casts the GEMM's output gradient the
// same way (grad_output_preprocess). Current scaling reads each tensor once more first, for its amax; delayed
// scaling's amax comes out of the cast itself. Under autocast TE casts fp32 weights and inputs straight to fp8,
// so these layers have no autocast casts of their own. Not counted: TE fusing the norm's cast into the norm
// (LayerNormLinear writes fp8 directly, one read of T h fewer), the amax history's update, a few kernels a step.
//
// Recompute (block_recompute; strategy.recompute): selective runs the separate-kernel attention core again (Megatron's
// selective recompute; nothing with flash attention), full the block's forward. selective_op is torchtitan's per-op
// policy (pytorch/torchtitan @ 9dec370, torchtitan/parallelisms/parallelize_llama.py L213-276; the same at v0.1.0):
// under torch.utils.checkpoint's selective contexts it keeps the outputs of aten.mm, scaled_dot_product_attention and
// the tensor-parallel reduce-scatters, except every second mm the block runs (its count of them, forward and recompute
// apart), and runs everything else again. torchtitan's Llama runs its matmuls as q, k, v, o, w1, w3, w2 (FeedForward:
// w2(silu(w1(x)) * w3(x))), so k, o and w3 run again (a plain MLP's q k v o w1 w2: k, o and w2), with the norms, the
// rotary embedding, the activation and the all-gathers; dtsim's fused qkv runs its k columns (kv_dim of qkv_out) and
// a gated fc1 its up half again. A linear layer's casts run again whole with any part of it. Models with experts are
// refused (the policy counts a dense block's matmuls).
//
// TP communication overlap (ShardShape::tp_comm_overlap; framework.tp_comm_overlap), as Transformer Engine's
// userbuffers run Megatron-Core's tp_comm_overlap (TE transformer_engine/pytorch/module/base.py, initialize_ub: each
// linear layer's all-gather before it or reduce-scatter after it split into t chunks that travel while the GEMM
// works on the previous ones, ring-exchange for fprop and dgrad all-gathers, pipelined reduce-scatters, and in the
// backward bulk overlap with the other half of the GEMM). Only with sequence parallelism and t > 1, as NeMo's
// MegatronCommOverlapCallback disables it otherwise. The block's four sequence-parallel collectives each way (not
// the embedding's, the output layer's or the experts') are marked (KernelStep::beside) and placed next to their
// GEMM: an all-gather right before the first GEMM after it, a reduce-scatter right after the last GEMM before it
// (moving it past an fp8 cast or a bias gradient, which changes nothing on a serial stream). Each runs as TE's
// defaults run it (TE @ d0067d0, module/base.py: initialize_ub's methods and get_default_config): the all-gathers
// forward and backward (qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad) by ring exchange in t pieces on the copy
// engines, the GEMM on every SM; the forward reduce-scatters (proj_fprop, fc2_fprop) pipelined in 4 pieces and the
// backward's (qkv_wgrad, fc1_wgrad) in bulk beside the GEMM (costed as t pieces), each holding 16 SMs for its
// kernels that the GEMM then runs without (set_sm_margin: comm_gemm_overlap.cpp, _math_sms = sm_count -
// num_comm_sm). NeMo's recipes give per-model configs of their own (24 or 16 SMs forward, none in bulk: NeMo's
// tp_overlap_configs/userbuffers.py); the key follows TE's defaults. The plan runs each pair as one composite whose
// parts overlap (core/plan/plan.hpp, Composite::beside): max(G', C) + min(G', C) / n for n pieces, a collective of
// C seconds and a GEMM of G' = G x S / (S - margin) on a device of S SMs, the pipeline's fill of one piece of the
// shorter one. Not modelled: a GEMM split into pieces running below the whole's rate, and the bulk kernels'
// memory traffic beside the GEMM.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/parallel/hybrid.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/pointwise.hpp"
#include "models/zoo/kernel.hpp"
#include "models/zoo/reread.hpp"
#include "models/zoo/transformer.hpp"

namespace dtsim {

struct KernelStep {
  std::string name;  // "qkv", "attention", "fc1", "all-reduce", ...
  bool collective = false;
  // Compute: FLOPs and bytes of memory traffic on one rank.
  KernelClass cls = KernelClass::Gemm;  // what it costs on the device (models/zoo/kernel.hpp)
  double flops = 0;
  double mem_bytes = 0;
  // Collective: its kind, group and S (collective.hpp's meaning).
  CollectiveKind kind = CollectiveKind::AllReduce;
  GroupKind group = GroupKind::Tensor;
  double bytes = 0;
  GemmShape gemm{};  // a compute GEMM's shape
  // The dtype its FLOPs run in when not the model's (an fp8 linear layer's GEMM; FP8 above).
  std::optional<Dtype> dtype;
  // Memory traffic of its backward when it is not twice the forward's (autocast's casts); < 0: twice.
  double backward_bytes = -1;
  // A two-pass norm's second read of its rows, forward and backward (models/zoo/reread.hpp); none otherwise.
  Reread reread{};
  Reread backward_reread{};
  // A GEMM with a bias: the output-gradient elements its backward sums into the bias gradient (a reduction kernel of
  // its own, as PyTorch's grad_output.sum(0): one read of them); 0: no bias.
  double bias_outputs = 0;
  // A tensor-parallel collective Transformer Engine runs beside its GEMM (TP communication overlap above): an
  // all-gather beside the step after it, a reduce-scatter beside the step before it (both GEMMs), in `chunks`
  // pipelined pieces, the GEMM running on all the device's SMs but `sm_margin`; chunks 0: not overlapped.
  struct Overlap {
    int chunks = 0;
    int sm_margin = 0;
    bool on() const { return chunks > 0; }
  };
  Overlap beside{};
};

// The shape of one rank's share of the work.
struct ShardShape {
  int tensor = 1;
  int context = 1;
  int expert = 1;
  bool sequence_parallel = false;
  int micro_batch = 1;
  double dtype_bytes = 2;             // activations and weights
  bool autocast = false;              // torch.autocast over fp32 parameters (16-bit dtype_bytes only): see above
  int micro_batches = 1;              // per optimizer step: autocast sums weight gradients over them
  bool eager_attention = false;       // separate-kernel attention as eager PyTorch runs it: see above
  Fp8Scaling fp8 = Fp8Scaling::None;  // the linear layers' GEMMs in fp8 (16-bit dtype_bytes only): see above
  bool tp_comm_overlap = false;       // the block's sequence-parallel collectives beside their GEMMs: see above
  PointwiseKernels pointwise = PointwiseKernels::Fused;  // norms, rotary, SwiGLU, loss: fused or eager (pointwise.hpp)
  NormKernel norm_kernel = NormKernel::OnePass;          // a fused norm's passes over its rows (pointwise.hpp)
};
ShardShape shard_shape(const HybridSpec& layout, double dtype_bytes);

// Steps of one transformer block (attention and MLP or MoE).
std::vector<KernelStep> block_forward(const TransformerSpec& m, const ShardShape& sh);
std::vector<KernelStep> block_backward(const TransformerSpec& m, const ShardShape& sh);
// What selective recompute runs again before a block's backward: the attention core (nothing with
// flash attention, which recomputes it within its backward anyway).
std::vector<KernelStep> attention_core_recompute(const TransformerSpec& m, const ShardShape& sh);
// The first stage's embedding (vocab-parallel lookup, its all-reduce or reduce-scatter) and the last
// stage's final norm, output layer and vocab-parallel cross-entropy.
std::vector<KernelStep> embedding_forward(const TransformerSpec& m, const ShardShape& sh);
std::vector<KernelStep> embedding_backward(const TransformerSpec& m, const ShardShape& sh);
std::vector<KernelStep> head_forward(const TransformerSpec& m, const ShardShape& sh);
std::vector<KernelStep> head_backward(const TransformerSpec& m, const ShardShape& sh);

// Parameters one rank holds of one block: dense (replicated over d x c) and expert (over d x c / e).
struct BlockParams {
  double dense = 0;
  double expert = 0;
};
BlockParams block_params(const TransformerSpec& m, const ShardShape& sh);
// Of those, the linear layers' weights (qkv, the projection, fc1 and fc2, and each expert's): what Transformer Engine
// runs in fp8, and stores in fp8 with fp8 parameters (framework.fp8_param_gather); the norms, biases and router not.
BlockParams block_linear_weights(const TransformerSpec& m, const ShardShape& sh);
double embedding_params(const TransformerSpec& m, const ShardShape& sh);  // word (+ learned positions), over t
// The final norm and the output layer's weights over t (untied, or the last stage's copy of tied embeddings).
double head_params(const TransformerSpec& m, const ShardShape& sh);

// Bytes of the activation a stage sends the next per micro-batch (and the gradient back): T h,
// split over t (sequence parallel, or Megatron's scatter-gather of pipeline messages).
double stage_message_bytes(const TransformerSpec& m, const ShardShape& sh);

}  // namespace dtsim
