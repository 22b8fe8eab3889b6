// The memory-bound composites of a transformer that PyTorch has no single kernel for, and their memory traffic
// either way they run: as one fused kernel (Megatron-Core's and Transformer Engine's fused kernels, apex's, or what
// torch.compile's Inductor makes of them), or op by op as PyTorch eager runs the module's code, each op reading its
// inputs and writing its output once (framework.pointwise_kernels; docs/engines.md, Framework overheads).
//
// Bytes per element of the composite's output, with B the activations' bytes (2 in bf16) and the eager op lists
// read from torchtitan's Llama (pytorch/torchtitan @ 9dec370, torchtitan/models/norms.py RMSNorm,
// torchtitan/models/llama/model.py apply_rotary_emb and FeedForward, train.py loss_fn; the same ops at v0.1.0 through
// torch.nn.RMSNorm, whose rms_norm is PyTorch's composite of them), their backward from PyTorch's autograd formulas
// (tools/autograd/derivatives.yaml, FunctionsManual.cpp):
//
// A norm; eager only RMSNorm, y = (x.float() * rsqrt(mean(x.float()^2) + eps)).type_as(x) * w, x in B bytes (u = B + 4
// for a cast up or down, 0 when x is fp32 already):
//   fused    forward 2B (read x, write y)     backward 5B (dx: x, dy read, dx written; dw: x, dy read again)
//   eager    forward u + 8 + 4 + 8 + u + 2B   (float, pow, mean, x * r, type_as, * w; the rsqrt and the eps add on
//                                             one value a token are left out) = 36 in bf16
//            backward 2B + 4B + u + 8 + 16 + 4 + 28 + 12 + u  (dy * w; dw as dy * y summed over the tokens; the cast
//                                             up; g * r; (g * x) summed over the hidden size; mean's gradient expanded;
//                                             pow's: x.pow(1) copied, times 2, times the gradient; the two gradients
//                                             of x.float() added; the cast down) = 92 in bf16
// Rotary embedding on the rank's queries and keys: fused 2B forward and 2B backward (read, write); eager
//   x.float() (B + 4), the complex product with the frequencies (8: 4 read, 4 written an element), type_as (4 + B)
//   forward, and backward the same three (the cast, the product with the conjugate, the cast back): 16 + 2B each.
// SwiGLU, silu(x1) * x3, per element of its output (f of them; the fused kernel reads 2f and writes f): fused 3B
//   forward, 6B backward; eager silu (2B) then the product (3B) forward, 5B; backward the product's two gradients
//   (3B each) and silu's (3B), 9B.
// The loss on fp32 logits (torch.nn.functional.cross_entropy as PyTorch runs it on logits cast to fp32: under
//   torch.autocast, which lists cross_entropy among its fp32 ops, or torchtitan's pred.float()): the cast is its own
//   kernel (B + 4 forward and backward); log_softmax over a vocabulary's row, which does not fit in a block's
//   shared memory (sharedMemPerBlock, 48 KB: 12,288 fp32 words; every LLM vocabulary is larger), runs
//   aten/src/ATen/native/cuda/SoftMax.cu's grid-stride cunn_SoftMaxForward: the row read for its maximum, again for
//   its sum of exponentials, and a third time to write the output: 3 x 4 + 4 = 16 forward; backward nll_loss's
//   gradient written as a zero-filled fp32 tensor (4), then cunn_SoftMaxBackward: the gradient read for its sum (4),
//   gradient and output read and the input's gradient written (12), 20. Timed alone on an H200 (scripts/
//   torch_memory_probe.py's cross_entropy rows, 4,096 and 16,384 tokens x 32,000 to 128,256 words, fp32): 16 and 20
//   bytes at the zoo's memory figure give their times to a median -0.3 % (bench/kernels/memory_classes_h200.md),
//   where one read (8 and 16 bytes) gave half the forward's. Fused (Megatron's vocab-parallel cross-entropy,
//   flash-attn's xentropy kernel that llm-foundry's MPT runs): B + 4 forward (the logits read, the fp32 softmax kept),
//   4 + B backward, on the logits as the output layer wrote them, under autocast too.
// LayerNorm is one native kernel eager or not (torch.nn.functional.layer_norm), GELU too: fused either way.
//
// Adding a composite: its function below, its paragraph here, its closed form in
// tests/models/parallel/pointwise_test.cpp.
#pragma once

namespace dtsim {

// How the composites run (framework.pointwise_kernels). Fused: one kernel each. Eager: op by op, everywhere.
// CompiledBlocks: torch.compile on each transformer block (torchtitan's apply_compile): the blocks' composites fused,
// the final norm and the loss outside them eager.
enum class PointwiseKernels { Fused, Eager, CompiledBlocks };

// How a fused LayerNorm or RMSNorm reads its rows (framework.norm_kernel). OnePass: each row once, held in registers
// (Transformer Engine's tuned kernels, torch.compile's persistent reductions). TwoPass: a first pass for the
// statistics and a second to normalise (PyTorch's native kernel, apex's and Megatron-DeepSpeed's FusedLayerNorm);
// backward, the input gradient's two passes over the output gradient and the input. The second pass comes from L2
// while the rows in flight fit there (models/zoo/reread.hpp). An eager RMSNorm runs op by op either way.
enum class NormKernel { OnePass, TwoPass };

// Bytes of memory traffic per element, forward and backward.
struct PointwiseTraffic {
  double forward = 0;
  double backward = 0;
};

// `eager`: an RMSNorm op by op (a LayerNorm is one kernel either way: pass false).
PointwiseTraffic norm_traffic(bool eager, double bytes);
PointwiseTraffic rotary_traffic(bool eager, double bytes);
PointwiseTraffic swiglu_traffic(bool eager, double bytes);
// The loss's log-softmax over logits (without the cast up, a kernel of its own): fp32 as PyTorch runs it, or fused.
PointwiseTraffic cross_entropy_traffic(bool fp32_logits, double bytes);

}  // namespace dtsim
