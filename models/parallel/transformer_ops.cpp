// The kernel steps of a transformer on one rank of a hybrid layout (rules in transformer_ops.hpp).
#include "models/parallel/transformer_ops.hpp"

#include "models/parallel/pointwise.hpp"

#include <algorithm>

namespace dtsim {
namespace {

// The dimensions every step of one rank needs, from the model and the shard.
struct Dims {
  double b, s, h, a, t, c, e, kv_dim, qkv_out, f, f_in, vocab, experts, top_k, capacity, db;
  double rb;          // bytes of an element of the residual stream, norms, softmax and loss: 4 under autocast, else db
  double accumulate;  // autocast: the share of micro-batches whose weight gradients are added to .grad, (m - 1) / m
  bool autocast;
  double tokens;     // T = b s / c: the rank's tokens of a micro-batch (its sequence shard)
  double sp_tokens;  // tokens the rank's norms and dropout touch: T / t with sequence parallel
  bool sp, flash, eager, causal, moe, rms, bias, rotary, gated;
  bool eager_blocks;     // the blocks' RMSNorms, rotary and SwiGLU op by op (pointwise.hpp)
  bool eager_head;       // the final RMSNorm op by op
  bool fp32_loss;        // the loss as PyTorch's cross_entropy on logits cast to fp32 (eager heads)
  bool tp_overlap;       // the block's sequence-parallel collectives beside their GEMMs (TP communication overlap)
  bool two_pass_norm;    // a fused norm reads its rows twice (pointwise.hpp, NormKernel)
  Fp8Scaling fp8;        // the linear layers' GEMMs in fp8 (None: in the model's dtype)
  double micro_batches;  // per optimizer step: fp8 weight casts are spread over them
  double window, window_share;  // a sliding window's keys and the share of blocks it is on (0: no window)
};

Dims dims_of(const TransformerSpec& m, const ShardShape& sh) {
  Dims d{};
  d.b = sh.micro_batch;
  d.s = m.seq_len;
  d.h = m.hidden;
  d.a = m.heads;
  d.t = sh.tensor;
  d.c = sh.context;
  d.e = sh.expert;
  const double kv_heads = m.kv_heads > 0 ? m.kv_heads : m.heads;
  d.kv_dim = kv_heads * d.h / d.a;
  d.qkv_out = d.h + 2 * d.kv_dim;
  d.f = m.ffn > 0 ? m.ffn : 4.0 * m.hidden;
  d.f_in = m.gated_mlp ? 2 * d.f : d.f;
  d.vocab = m.vocab;
  d.experts = m.experts;
  d.top_k = m.top_k;
  d.capacity = m.capacity_factor > 0 ? m.capacity_factor : 1.0;  // dropless: balanced routing
  d.db = sh.dtype_bytes;
  d.autocast = sh.autocast && sh.dtype_bytes < 4;
  d.rb = d.autocast ? 4 : d.db;
  d.accumulate = sh.micro_batches > 1 ? (sh.micro_batches - 1.0) / sh.micro_batches : 0;
  d.tokens = d.b * d.s / d.c;
  d.sp = sh.sequence_parallel && sh.tensor > 1;
  d.sp_tokens = d.sp ? d.tokens / d.t : d.tokens;
  d.tp_overlap = d.sp && sh.tp_comm_overlap;
  d.flash = m.flash_attention;
  d.eager = sh.eager_attention && !d.flash;
  d.causal = !m.encoder;
  d.moe = m.experts > 0;
  d.rms = m.rms_norm;
  d.bias = m.bias;
  d.rotary = m.rotary;
  d.gated = m.gated_mlp;
  d.eager_blocks = sh.pointwise == PointwiseKernels::Eager;
  d.eager_head = sh.pointwise != PointwiseKernels::Fused;
  d.fp32_loss = d.eager_head;
  d.two_pass_norm = sh.norm_kernel == NormKernel::TwoPass;
  d.fp8 = sh.dtype_bytes < 4 ? sh.fp8 : Fp8Scaling::None;
  d.micro_batches = std::max(1, sh.micro_batches);
  d.window = m.window;
  d.window_share = has_window(m) ? m.window_layers : 0;
  return d;
}

KernelStep compute(std::string name, KernelClass cls, double flops, double mem_bytes) {
  KernelStep k;
  k.name = std::move(name);
  k.cls = cls;
  k.flops = flops;
  k.mem_bytes = mem_bytes;
  return k;
}

// `batch` GEMMs of (M x K) by (K x N): 2 M K N FLOPs each; each reads both operands and writes its
// result once.
KernelStep gemm(std::string name, double m, double k, double n, double db, double batch = 1) {
  KernelStep g =
      compute(std::move(name), KernelClass::Gemm, batch * 2 * m * k * n, batch * (m * k + k * n + m * n) * db);
  g.gemm = GemmShape{m, n, k, batch, false};
  return g;
}

// A GEMM whose bias, when the model has biases, is added to `outputs` elements.
KernelStep biased(KernelStep g, const Dims& d, double outputs) {
  if (d.bias) g.bias_outputs = outputs;
  return g;
}

// The bias gradient of a biased GEMM's backward: its output gradient read once and summed per output feature.
KernelStep bias_gradient(const KernelStep& g, const Dims& d) {
  return compute(g.name + " bias grad", KernelClass::Elementwise, 0, g.bias_outputs * d.db);
}

KernelStep collective(std::string name, CollectiveKind kind, GroupKind group, double bytes) {
  KernelStep k;
  k.name = std::move(name);
  k.collective = true;
  k.kind = kind;
  k.group = group;
  k.bytes = bytes;
  return k;
}

// Appends a collective on the tensor group only when the group has more than one rank.
void tensor_collective(std::vector<KernelStep>& out, const Dims& d, CollectiveKind kind, double bytes) {
  if (d.t <= 1) return;
  out.push_back(collective(std::string(collective_name(kind)), kind, GroupKind::Tensor, bytes));
}

// A block's sequence-parallel all-gather or reduce-scatter around a linear layer, or its all-reduce without sequence
// parallelism: beside its GEMM under TP communication overlap (transformer_ops.hpp).
void block_collective(std::vector<KernelStep>& out, const Dims& d, CollectiveKind kind, double bytes) {
  tensor_collective(out, d, kind, bytes);
  // Marked here; place_beside_gemms gives it its pieces and SMs and its place.
  if (d.t > 1 && d.tp_overlap && kind != CollectiveKind::AllReduce) out.back().beside.chunks = 1;
}

// The SMs Transformer Engine's pipelined and bulk overlaps hold from the GEMM (get_default_config: num_sm 16,
// set_sm_margin where the method is not ring exchange), and the forward pipeline's pieces (num_splits 4).
constexpr int kTeCommSms = 16;
constexpr int kTePipelineSplits = 4;

// Gives each marked collective (KernelStep::beside) TE's pieces and SMs and moves it next to its GEMM: an all-gather
// right before the first GEMM after it, a reduce-scatter right after the last GEMM before it (one with no GEMM there
// runs alone). The steps it passes (an fp8 cast, a bias gradient) run on the same serial stream, so their order
// costs nothing.
void place_beside_gemms(std::vector<KernelStep>& steps, const Dims& d, bool backward) {
  const auto is_gemm = [](const KernelStep& k) { return !k.collective && k.cls == KernelClass::Gemm; };
  const int t = static_cast<int>(d.t);
  for (KernelStep& k : steps) {
    if (!k.beside.on()) continue;
    if (k.kind == CollectiveKind::AllGather) {
      k.beside = {t, 0};  // ring exchange on the copy engines
    } else {
      k.beside = {backward ? t : kTePipelineSplits, kTeCommSms};  // bulk backward, pipelined forward
    }
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i].beside.on() || steps[i].kind != CollectiveKind::AllGather) continue;
    size_t g = i + 1;
    while (g < steps.size() && !is_gemm(steps[g])) ++g;
    if (g == steps.size()) {  // no GEMM to overlap: it runs alone
      steps[i].beside = {};
      continue;
    }
    std::rotate(steps.begin() + static_cast<std::ptrdiff_t>(i), steps.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                steps.begin() + static_cast<std::ptrdiff_t>(g));
    i = g;
  }
  for (size_t i = steps.size(); i-- > 0;) {
    if (!steps[i].beside.on() || steps[i].kind != CollectiveKind::ReduceScatter) continue;
    size_t g = i;
    while (g > 0 && !is_gemm(steps[g - 1])) --g;
    if (g == 0) {
      steps[i].beside = {};
      continue;
    }
    std::rotate(steps.begin() + static_cast<std::ptrdiff_t>(g), steps.begin() + static_cast<std::ptrdiff_t>(i),
                steps.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  }
}

// Backward of a memory-bound kernel: it reads its saved input and the incoming gradient and writes
// the outgoing one: twice the forward's traffic.
// A GEMM's backward is its input- and weight-gradient products: twice the FLOPs and the traffic.
KernelStep backward_of(const KernelStep& fwd) {
  KernelStep k = fwd;
  k.flops *= 2;
  k.mem_bytes = fwd.backward_bytes >= 0 ? fwd.backward_bytes : 2 * fwd.mem_bytes;
  k.gemm.backward = true;
  k.gemm.split_accumulate = fwd.dtype == Dtype::Fp8;  // Transformer Engine's and torchao's gradients (kernel.hpp)
  k.reread = fwd.backward_reread;
  return k;
}

// A LayerNorm or RMSNorm: forward reads x and writes y. Backward is two kernels (PyTorch's layer_norm_backward and
// apex's FusedLayerNorm alike): the input gradient reads x and dy and writes dx, the weight (and bias) gradient
// reads x and dy again to reduce over the tokens: five passes, not twice the forward's two. An eager RMSNorm runs
// op by op (pointwise.hpp). A two-pass kernel (NormKernel) reads each row of x again forward, and of x and dy again
// for the input gradient, from L2 or memory as the device decides (models/zoo/reread.hpp).
KernelStep norm(const Dims& d, std::string name, bool eager) {
  const double elements = d.sp_tokens * d.h;
  const bool op_by_op = eager && d.rms;
  const PointwiseTraffic t = norm_traffic(op_by_op, d.rb);
  KernelStep k = compute(std::move(name), KernelClass::Norm, (d.rms ? 4 : 5) * elements, t.forward * elements);
  k.backward_bytes = t.backward * elements;
  if (d.two_pass_norm && !op_by_op) {
    k.reread = Reread{d.h * d.rb, elements * d.rb};
    k.backward_reread = Reread{2 * d.h * d.rb, 2 * elements * d.rb};
  }
  return k;
}

// Rotary embedding of the rank's queries and keys (pointwise.hpp): a handful of FLOPs an element.
KernelStep rotary(const Dims& d) {
  const double elements = d.tokens * (d.h + d.kv_dim) / d.t;
  const PointwiseTraffic t = rotary_traffic(d.eager_blocks, d.db);
  KernelStep k = compute("rotary", KernelClass::Elementwise, 3 * elements, t.forward * elements);
  k.backward_bytes = t.backward * elements;
  return k;
}

// The MLP's activation over `tokens`: GELU reads f and writes f, SwiGLU (pointwise.hpp) reads 2f and writes f fused.
KernelStep activation(const Dims& d, std::string name, double tokens) {
  const double outputs = tokens * d.f / d.t;
  KernelStep k = compute(std::move(name), KernelClass::Elementwise, 8 * outputs, 2 * outputs * d.db);
  if (d.gated) {
    const PointwiseTraffic t = swiglu_traffic(d.eager_blocks, d.db);
    k.mem_bytes = t.forward * outputs;
    k.backward_bytes = t.backward * outputs;
  }
  return k;
}

// Dropout and the residual add: read x and the residual, write the sum and a 1-byte mask.
KernelStep dropout_residual(const Dims& d, std::string name) {
  const double elements = d.sp_tokens * d.h;
  return compute(std::move(name), KernelClass::Elementwise, 2 * elements, elements * (d.db + 2 * d.rb + 1));
}

// Autocast's cast of `elements` between fp32 and 16 bits: one read and one write; its backward casts the
// gradient back.
KernelStep cast(std::string name, double elements, const Dims& d) {
  KernelStep k = compute(std::move(name), KernelClass::Elementwise, 0, elements * (4 + d.db));
  k.backward_bytes = k.mem_bytes;
  return k;
}

// Autocast's casts before a GEMM: its fp32 input (0: its input is 16-bit already) and its fp32 weights, whose
// backward casts the weight gradient to fp32 and adds it to .grad after the first micro-batch (12 bytes).
std::vector<KernelStep> gemm_casts(const Dims& d, const std::string& gemm, double fp32_input, double weights) {
  std::vector<KernelStep> out;
  if (!d.autocast) return out;
  if (fp32_input > 0) out.push_back(cast(gemm + " input cast", fp32_input, d));
  KernelStep w = cast(gemm + " weight cast", weights, d);
  w.backward_bytes += weights * 12 * d.accumulate;
  out.push_back(std::move(w));
  return out;
}

void append(std::vector<KernelStep>& out, std::vector<KernelStep> steps) {
  for (KernelStep& k : steps) out.push_back(std::move(k));
}

// FP8 (transformer_ops.hpp): one linear layer's cast kernel. Forward: its `inputs` elements (B bytes each) and, 1/m of
// it, its `weights` (the weights' bytes: 4 under autocast, else B), each read and written as fp8 and its transpose;
// backward: its `outputs`' gradient so. Current scaling reads each tensor once more for its amax.
KernelStep fp8_cast(const Dims& d, const std::string& gemm, double inputs, double input_bytes, double weights,
                    double outputs) {
  const double amax = d.fp8 == Fp8Scaling::Current ? 1 : 0;
  const double weight_bytes = d.autocast ? 4 : d.db;
  const double forward =
      inputs * ((1 + amax) * input_bytes + 2) + weights / d.micro_batches * ((1 + amax) * weight_bytes + 2);
  KernelStep k = compute(gemm + " fp8 cast", KernelClass::Elementwise, 0, forward);
  k.backward_bytes = outputs * ((1 + amax) * d.db + 2);
  return k;
}

// A linear layer: its casts (autocast's, or fp8's) and its GEMM of `batch` products (M x K) by (K x N), biased over
// its `bias_outputs` when the model has biases. `fp32_input`: autocast keeps its input in fp32 (qkv, fc1, the
// router). `fp8_eligible`: a layer Transformer Engine runs in fp8 (not the router).
void linear(std::vector<KernelStep>& out, const Dims& d, const std::string& name, double m, double k, double n,
            double weights, double bias_outputs, bool fp32_input, bool fp8_eligible, double batch = 1) {
  KernelStep g = gemm(name, m, k, n, d.db, batch);
  if (fp8_eligible && d.fp8 != Fp8Scaling::None) {
    out.push_back(fp8_cast(d, name, batch * m * k, fp32_input && d.autocast ? 4 : d.db, weights, batch * m * n));
    g.mem_bytes = batch * ((m * k + k * n) * dtype_bytes(Dtype::Fp8) + m * n * d.db);
    g.dtype = Dtype::Fp8;
  } else {
    append(out, gemm_casts(d, name, fp32_input ? batch * m * k : 0, weights));
  }
  out.push_back(biased(std::move(g), d, bias_outputs));
}

// The backward of forward steps, in reverse order.
void append_backward(std::vector<KernelStep>& out, const std::vector<KernelStep>& forward) {
  for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
    KernelStep k = backward_of(*it);
    k.name += " bwd";
    out.push_back(std::move(k));
  }
}

double scores(const Dims& d) { return d.tokens * d.s * d.a / d.t; }  // attention score elements

// Eager attention's copy of `bytes` between the tokens' layout and the heads': read and written once, and its
// backward copies the gradient the other way.
KernelStep layout_copy(std::string name, double bytes) {
  KernelStep k = compute(std::move(name), KernelClass::LayoutCopy, 0, 2 * bytes);
  k.backward_bytes = k.mem_bytes;
  return k;
}

std::vector<KernelStep> attention_core(const Dims& d) {
  const double q_bytes = d.tokens * d.h / d.t * d.db;
  const double kv_bytes = d.b * d.s * d.kv_dim / d.t * d.db;  // K or V over the whole sequence
  if (d.flash) {
    // A kernel's share of the blocks' FLOPs and bytes, and its QK^T product's shape, which its efficiency follows
    // (models/zoo/attention.hpp): a windowed query tile spans the window's keys (transformer_ops.hpp).
    const auto kernel = [&](std::string name, double flops, double keys, double share) {
      KernelStep k = compute(std::move(name), KernelClass::Attention, flops * share, 2 * (q_bytes + kv_bytes) * share);
      k.gemm = GemmShape{d.s / d.c, keys, d.h / d.a, d.b * d.a / d.t, false, d.causal};
      return k;
    };
    std::vector<KernelStep> out;
    const double full = 4 * d.tokens * d.s * d.h / d.t * (d.causal ? 0.5 : 1.0);
    if (d.window_share < 1) out.push_back(kernel("attention", full, d.s, 1 - d.window_share));
    const double windowed = 4 * d.tokens * causal_keys_per_query(d.s, d.window) * d.h / d.t;
    if (d.window_share > 0) out.push_back(kernel("window attention", windowed, d.window, d.window_share));
    return out;
  }
  // One product per sequence and local head: the rank's s / c queries against all s keys.
  const double n = scores(d);
  const double heads = d.b * d.a / d.t;
  const double head_dim = d.h / d.a;
  KernelStep qk = compute("qk^T", KernelClass::Gemm, 2 * d.tokens * d.s * d.h / d.t, q_bytes + kv_bytes + n * d.db);
  qk.gemm = GemmShape{d.s / d.c, d.s, head_dim, heads, false};
  KernelStep av = compute("av", KernelClass::Gemm, 2 * d.tokens * d.s * d.h / d.t, n * d.db + kv_bytes + q_bytes);
  av.gemm = GemmShape{d.s / d.c, head_dim, d.s, heads, false};
  std::vector<KernelStep> out;
  if (d.eager) {
    out.push_back(layout_copy("q layout copy", q_bytes));
    out.push_back(layout_copy("k layout copy", kv_bytes));
    out.push_back(layout_copy("v layout copy", kv_bytes));
  }
  out.push_back(qk);
  if (d.eager) {
    // The scale, then the mask add, whose fp32 mask under autocast promotes the scores to fp32 (their cast up).
    KernelStep scale = compute("scale", KernelClass::Elementwise, n, 2 * n * d.db);
    scale.backward_bytes = scale.mem_bytes;
    out.push_back(std::move(scale));
    KernelStep mask = compute("mask", KernelClass::Elementwise, n, n * (d.db + d.rb));
    mask.backward_bytes = d.autocast ? n * (4 + d.db) : 0;  // the gradient passes through (autocast: cast back)
    out.push_back(std::move(mask));
  } else if (d.autocast) {
    // Autocast: the 16-bit scores are cast up for the fp32 softmax and dropout, the probabilities down for AV.
    out.push_back(cast("scores cast", n, d));
  }
  out.push_back(compute("softmax", KernelClass::Softmax, 5 * n, 2 * n * d.rb));
  out.push_back(compute("attention dropout", KernelClass::Elementwise, n, n * (2 * d.rb + 1)));
  if (d.autocast) out.push_back(cast("probabilities cast", n, d));
  out.push_back(av);
  if (d.eager) out.push_back(layout_copy("context layout copy", q_bytes));
  return out;
}

std::vector<KernelStep> attention_core_backward(const Dims& d) {
  std::vector<KernelStep> fwd = attention_core(d);
  std::reverse(fwd.begin(), fwd.end());
  std::erase_if(fwd, [](const KernelStep& k) { return k.backward_bytes == 0; });  // eager's mask add: no kernel
  for (KernelStep& k : fwd) {
    k = backward_of(k);
    if (k.cls == KernelClass::Attention) k.flops *= 1.25;  // flash: 5 matrix products backward, 2 forward
    k.name += " bwd";
  }
  return fwd;
}

double kv_gather_bytes(const Dims& d) { return d.b * d.s * 2 * d.kv_dim / d.t * d.db; }

}  // namespace

ShardShape shard_shape(const HybridSpec& layout, double dtype_bytes) {
  return ShardShape{layout.tensor,      layout.context, layout.expert, layout.sequence_parallel,
                    layout.micro_batch, dtype_bytes};
}

std::vector<KernelStep> block_forward(const TransformerSpec& m, const ShardShape& sh) {
  const Dims d = dims_of(m, sh);
  const double act = d.tokens * d.h * d.db;  // the block's T x h activation, as a collective's S
  std::vector<KernelStep> out;
  out.push_back(norm(d, "ln1", d.eager_blocks));
  if (d.sp) block_collective(out, d, CollectiveKind::AllGather, act);
  const double bias = d.bias ? 1 : 0;
  linear(out, d, "qkv", d.tokens, d.h, d.qkv_out / d.t, (d.h + bias) * d.qkv_out / d.t, d.tokens * d.qkv_out / d.t,
         true, true);
  if (d.rotary) out.push_back(rotary(d));
  if (d.c > 1)
    out.push_back(collective("kv all-gather", CollectiveKind::AllGather, GroupKind::Context, kv_gather_bytes(d)));
  for (KernelStep& k : attention_core(d)) out.push_back(std::move(k));
  linear(out, d, "proj", d.tokens, d.h / d.t, d.h, d.h * d.h / d.t + bias * d.h, d.sp_tokens * d.h, false, true);
  block_collective(out, d, d.sp ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce, act);
  out.push_back(dropout_residual(d, "attn dropout+residual"));
  out.push_back(norm(d, "ln2", d.eager_blocks));
  if (d.moe) {
    // Tokens are routed from the rank's sequence-parallel share (sequence parallel is required with t > 1).
    const double routed = d.sp_tokens * d.top_k * d.capacity;
    linear(out, d, "router", d.sp_tokens, d.h, d.experts, d.h * d.experts, 0, true, false);
    out.push_back(
        compute("top-k", KernelClass::Elementwise, 4 * d.sp_tokens * d.experts, 2 * d.sp_tokens * d.experts * 4));
    if (d.e > 1) {
      out.push_back(collective("dispatch", CollectiveKind::AllToAll, GroupKind::Expert, routed * d.h * d.db));
    }
    // Expert tensor parallelism (Megatron's default, expert t = t): the tensor group's routed tokens
    // are gathered, each rank computes its 1/t of every local expert, and the outputs are
    // reduce-scattered back.
    const double gathered = routed * d.t;
    if (d.t > 1) {
      out.push_back(
          collective("expert all-gather", CollectiveKind::AllGather, GroupKind::Tensor, gathered * d.h * d.db));
    }
    // The rank's experts each take their share of the gathered tokens.
    const double local_experts = d.experts / d.e;
    linear(out, d, "expert fc1", gathered / local_experts, d.h, d.f_in / d.t,
           local_experts * (d.h + bias) * d.f_in / d.t, gathered * d.f_in / d.t, false, true, local_experts);
    out.push_back(activation(d, "expert activation", gathered));
    linear(out, d, "expert fc2", gathered / local_experts, d.f / d.t, d.h,
           local_experts * (d.f * d.h / d.t + bias * d.h), gathered * d.h, false, true, local_experts);
    if (d.t > 1) {
      out.push_back(
          collective("expert reduce-scatter", CollectiveKind::ReduceScatter, GroupKind::Tensor, gathered * d.h * d.db));
    }
    if (d.e > 1) {
      out.push_back(collective("combine", CollectiveKind::AllToAll, GroupKind::Expert, routed * d.h * d.db));
    }
  } else {
    if (d.sp) block_collective(out, d, CollectiveKind::AllGather, act);
    linear(out, d, "fc1", d.tokens, d.h, d.f_in / d.t, (d.h + bias) * d.f_in / d.t, d.tokens * d.f_in / d.t, true,
           true);
    out.push_back(activation(d, "activation", d.tokens));
    linear(out, d, "fc2", d.tokens, d.f / d.t, d.h, d.f * d.h / d.t + bias * d.h, d.sp_tokens * d.h, false, true);
    block_collective(out, d, d.sp ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce, act);
  }
  out.push_back(dropout_residual(d, "mlp dropout+residual"));
  place_beside_gemms(out, d, false);
  return out;
}

std::vector<KernelStep> block_backward(const TransformerSpec& m, const ShardShape& sh) {
  const Dims d = dims_of(m, sh);
  const double act = d.tokens * d.h * d.db;
  // The forward, reversed: compute steps become their backward; a forward all-gather becomes a
  // reduce-scatter and vice versa; a forward all-reduce (after a row-parallel GEMM) becomes nothing
  // and the identity before a column-parallel GEMM (qkv, fc1) an all-reduce of the input gradient.
  std::vector<KernelStep> fwd = block_forward(m, sh);
  // The attention core's first and last forward steps (attention_core: flash's one kernel, or its full and windowed
  // shares; the separate kernels').
  const std::vector<KernelStep> core_steps = attention_core(d);
  const std::string core_first = core_steps.front().name;
  const std::string core_last = core_steps.back().name;
  std::vector<KernelStep> out;
  for (auto it = fwd.rbegin(); it != fwd.rend(); ++it) {
    if (it->collective) {
      KernelStep k = *it;
      if (k.kind == CollectiveKind::AllReduce) continue;
      if (k.kind == CollectiveKind::AllGather)
        k.kind = CollectiveKind::ReduceScatter;
      else if (k.kind == CollectiveKind::ReduceScatter)
        k.kind = CollectiveKind::AllGather;
      k.name = std::string(collective_name(k.kind)) + " bwd";
      out.push_back(std::move(k));
      continue;
    }
    if (it->name == core_last) {
      // The attention core's backward as a whole (flash: its own backward kernels).
      std::vector<KernelStep> core = attention_core_backward(d);
      out.insert(out.end(), core.begin(), core.end());
      it = std::find_if(it, fwd.rend(), [&core_first](const KernelStep& k) { return k.name == core_first; });
      continue;
    }
    KernelStep k = backward_of(*it);
    k.name += " bwd";
    out.push_back(std::move(k));
    if (it->bias_outputs > 0) out.push_back(bias_gradient(*it, d));
    if (!d.sp && (it->name == "qkv" || it->name == "fc1")) tensor_collective(out, d, CollectiveKind::AllReduce, act);
  }
  place_beside_gemms(out, d, true);
  return out;
}

std::vector<KernelStep> attention_core_recompute(const TransformerSpec& m, const ShardShape& sh) {
  const Dims d = dims_of(m, sh);
  if (d.flash) return {};
  std::vector<KernelStep> core = attention_core(d);
  for (KernelStep& k : core) k.name += " recompute";
  return core;
}

std::vector<KernelStep> embedding_forward(const TransformerSpec& m, const ShardShape& sh) {
  const Dims d = dims_of(m, sh);
  const double act = d.tokens * d.h * d.db;
  std::vector<KernelStep> out;
  // Vocab-parallel lookup: each rank writes the rows of its vocabulary shard (zeros elsewhere).
  out.push_back(compute("embedding", KernelClass::Embedding, 0, 2 * d.tokens * d.h * d.rb));
  if (!m.rotary)
    out.push_back(compute("positions", KernelClass::Elementwise, d.tokens * d.h, 3 * d.tokens * d.h * d.rb));
  tensor_collective(out, d, d.sp ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce, act);
  out.push_back(
      compute("embedding dropout", KernelClass::Elementwise, d.sp_tokens * d.h, d.sp_tokens * d.h * (2 * d.rb + 1)));
  return out;
}

std::vector<KernelStep> embedding_backward(const TransformerSpec& m, const ShardShape& sh) {
  const Dims d = dims_of(m, sh);
  const double act = d.tokens * d.h * d.db;
  std::vector<KernelStep> out;
  out.push_back(compute("embedding dropout bwd", KernelClass::Elementwise, d.sp_tokens * d.h,
                        d.sp_tokens * d.h * (2 * d.rb + 1)));
  if (d.sp) tensor_collective(out, d, CollectiveKind::AllGather, act);
  out.push_back(compute("embedding bwd", KernelClass::Embedding, d.tokens * d.h, 3 * d.tokens * d.h * d.rb));
  return out;
}

std::vector<KernelStep> head_forward(const TransformerSpec& m, const ShardShape& sh) {
  const Dims d = dims_of(m, sh);
  const double act = d.tokens * d.h * d.db;
  const double logits = d.tokens * d.vocab / d.t;
  std::vector<KernelStep> out;
  out.push_back(norm(d, "final norm", d.eager_head));
  if (!m.lm_head) return out;  // a task head of negligible size
  if (d.sp) tensor_collective(out, d, CollectiveKind::AllGather, act);
  append(out, gemm_casts(d, "output layer", d.tokens * d.h, d.vocab * d.h / d.t));
  out.push_back(gemm("output layer", d.tokens, d.h, d.vocab / d.t, d.db));
  // Vocab-parallel cross-entropy (Megatron): local max, sum of exponentials and target logit, each
  // all-reduced over the tensor group; the softmax is kept in fp32 for the backward. PyTorch's on fp32 logits
  // (an eager head: torch.autocast runs cross_entropy in fp32, torchtitan casts them) casts them first (pointwise.hpp).
  if (d.fp32_loss && d.db < 4) out.push_back(cast("logits cast", logits, d));
  const PointwiseTraffic loss = cross_entropy_traffic(d.fp32_loss, d.db);
  out.push_back(compute("cross-entropy", KernelClass::Softmax, 5 * logits, logits * loss.forward));
  for (const char* what : {"logits max", "exp sum", "target logit"}) {
    if (d.t > 1) out.push_back(collective(what, CollectiveKind::AllReduce, GroupKind::Tensor, d.tokens * 4));
  }
  return out;
}

std::vector<KernelStep> head_backward(const TransformerSpec& m, const ShardShape& sh) {
  const Dims d = dims_of(m, sh);
  const double act = d.tokens * d.h * d.db;
  const double logits = d.tokens * d.vocab / d.t;
  std::vector<KernelStep> out;
  if (m.lm_head) {
    const PointwiseTraffic loss = cross_entropy_traffic(d.fp32_loss, d.db);
    out.push_back(compute("cross-entropy bwd", KernelClass::Elementwise, logits, logits * loss.backward));
    if (d.fp32_loss && d.db < 4) append_backward(out, {cast("logits cast", logits, d)});
    append_backward(out, {gemm("output layer", d.tokens, d.h, d.vocab / d.t, d.db)});
    append_backward(out, gemm_casts(d, "output layer", d.tokens * d.h, d.vocab * d.h / d.t));
    tensor_collective(out, d, d.sp ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce, act);
  }
  append_backward(out, {norm(d, "final norm", d.eager_head)});
  return out;
}

BlockParams block_params(const TransformerSpec& m, const ShardShape& sh) {
  const Dims d = dims_of(m, sh);
  const double norm_params = d.rms ? d.h : 2 * d.h;
  const double bias = d.bias ? 1 : 0;
  BlockParams p;
  // Norms and the row-parallel layers' biases are replicated over t; the rest is split.
  p.dense = 2 * norm_params + d.h * d.qkv_out / d.t + bias * d.qkv_out / d.t + d.h * d.h / d.t + bias * d.h;
  // One MLP's share: fc1 (and its bias) and fc2 split over t, fc2's bias replicated.
  const double mlp = (d.h * d.f_in + d.f * d.h + bias * d.f_in) / d.t + bias * d.h;
  if (d.moe) {
    p.dense += d.h * d.experts;        // the router
    p.expert = d.experts / d.e * mlp;  // the rank's experts, each split over t
  } else {
    p.dense += mlp;
  }
  return p;
}

BlockParams block_linear_weights(const TransformerSpec& m, const ShardShape& sh) {
  const Dims d = dims_of(m, sh);
  const double mlp = (d.h * d.f_in + d.f * d.h) / d.t;
  BlockParams p;
  p.dense = (d.h * d.qkv_out + d.h * d.h) / d.t + (d.moe ? 0 : mlp);
  p.expert = d.moe ? d.experts / d.e * mlp : 0;
  return p;
}

double embedding_params(const TransformerSpec& m, const ShardShape& sh) {
  const Dims d = dims_of(m, sh);
  const double positions = m.rotary ? 0 : (m.positions > 0 ? m.positions : m.seq_len) * d.h;
  return d.vocab * d.h / d.t + positions;
}

double head_params(const TransformerSpec& m, const ShardShape& sh) {
  const Dims d = dims_of(m, sh);
  return (d.rms ? d.h : 2 * d.h) + (m.lm_head ? d.vocab * d.h / d.t : 0);
}

double stage_message_bytes(const TransformerSpec& m, const ShardShape& sh) {
  const Dims d = dims_of(m, sh);
  return d.tokens * d.h * d.db / d.t;
}

}  // namespace dtsim
