// The memory model (memory.hpp): per pipeline stage, the peak bytes of one rank. Notation: L layers, h hidden,
// a heads, kv key/value heads, hk = h kv / a, f ffn width, V vocabulary, E experts, s sequence, b micro-batch;
// layout t, p, d, e, c, v (virtual stages), m micro-batches per iteration; B bytes of a weight or activation
// element (2 in 16-bit mixed precision, 4 in fp32/tf32).
//
// Parameters per rank (Shoeybi et al. 2019; Megatron-LM's ColumnParallelLinear/RowParallelLinear/VocabParallel-
// Embedding): a stage holds L / p layers (interleaved: v chunks of L / (p v), still L / p). Per layer Q and the output
// projection are h x h, K and V h x hk, all split over t; the MLP is 2 h f (gated: 3 h f) split over t. Column-
// parallel biases (QKV, the first MLP matrix) are split over t, row-parallel ones (output projection, second MLP
// matrix, h each) and the norms (LayerNorm 2h, RMSNorm h) are replicated. MoE layers: a router of h x E replicated,
// E / e experts per rank, each an MLP split over t (expert tensor parallel size = t). Stage 0 holds the word embedding
// V h / t (vocab-parallel) and the learned positions (positions x h, replicated over t as Megatron's plain
// Embedding; none with rotary); the last stage the final norm and the output layer V h / t: the LM head when untied,
// Megatron's copy of the word embedding when tied and p > 1 (none when tied and p = 1). Vocabulary padding is ignored.
//
// Bytes per parameter (Rajbhandari et al. 2020, ZeRO, section 3.1: 2 + 2 + K, K = 12 for Adam): weights B; gradients
// grad_dtype; optimizer 4 (fp32 master copy, only in mixed precision) + 4 x optimizer_states. Autocast (fp32
// parameters): weights 4 + B (the 16-bit copies the GEMMs' casts keep for the backward, one set counted), no master.
// ZeRO shards over the data-parallel group of d x c ranks (Megatron's distributed optimizer shards over dp x cp),
// expert parameters over their expert-data-parallel group of d x c / e: stage 1 the optimizer, 2 also the gradients, 3
// also the weights.
//
// Activations per layer and micro-batch: Korthikanti et al. 2022, section 4.1, term by term, with T = (s / c) b local
// tokens and r = t with sequence parallelism, else 1 (the regions tensor parallelism replicates):
//   LayerNorm 1 input B T h / r; QKV input B T h / r; Q, K, V B T 3h / t (unfused attention stores the K and V that
//   Megatron's DotProductAttention expands to all a heads with repeat_interleave; a fused kernel takes GQA as it is and
//   stores B T (h + 2 hk) / t); scores: softmax output B a T s / t, its dropout mask a T s / t and the dropout output
//   B a T s / t (flash attention instead: the fp32 log-sum-exp 4 a T / t; its dropout mask is regenerated from the
//   seed); output projection input B T h / t; dropout mask T h / r; LayerNorm 2 input B T h / r; first MLP matrix input
//   B T h / r; activation input B T f / t (SwiGLU: gate and up, B T 2f / t); second MLP matrix input B T f / t;
//   dropout mask T h / r.
// GPT (f = 4h, B = 2, unfused, dropout, c = 1) with SP: attention 2 + 2 + 6 + 2 + 1, MLP 2 + 2 + 8 + 8 + 1, together
// 34 s b h / t (the paper's 11 + 19 + 4 for the norms), and 5 a s^2 b / t of scores: s b h / t (34 + 5 a s / h);
// without SP the r = 1 terms are 10 s b h: s b h (10 + 24 / t + 5 a s / (h t)). Selective recompute drops the scores
// (the core attention is recomputed); full recompute keeps only the layer input B T h / r; selective_op what
// torchtitan's policy keeps (op_policy_bytes); with strategy.recompute_every n only every n-th layer of a stage
// recomputes, the others keep everything (per layer, the stage's average). Masks are 1 byte (PyTorch
// bools) and the log-sum-exp and router probabilities fp32 in any dtype, so fp32 compute doubles the rest only. Context
// parallel: every per-token term has s / c; the unfused scores are a (s / c) x s per head (local queries against every
// key). MoE: the second LayerNorm's output feeds the router (its fp32 probabilities 4 T E / r are kept), the dispatched
// tokens B T h k c_f (not split over t: Megatron's token dispatcher gathers the sequence shards of the tensor-parallel
// group) and the expert MLP's activation and second-matrix inputs scale with k c_f (top_k x capacity factor; 1 when
// dropless: the balanced average, a dropless peak depends on the routing). The unpermute's own storage is not counted.
//
// In flight (stage i, 0-based): GPipe m; 1F1B min(p - i, m) (Megatron's warm-up p - i - 1, plus the steady
// state's forward); interleaved (p - i - 1) 2 + (v - 1) p + 1 chunk-micro-batches, all m v when m = p (Megatron's
// get_forward_backward_func, interleaved warm-up; counted from the schedule's own order), which on stage 0 is
// L (1 + (p - 1) / (p v)) layers (Korthikanti, eq. 5's factor). Recompute adds the working set of the one layer being
// recomputed in backward (selective: its scores; full: all its activations but the stored input), which the paper
// leaves out. Stage 0 also holds, per micro-batch's worth of its layers (the same interleaved factor, as Megatron's
// theoretical_memory_usage.py): the int64 token ids 8 T and the embedding dropout mask T h / r (Korthikanti 4.4).
// The last stage holds, for the micro-batch in backward (GPipe: all m), the final norm's input B T h / r, the output
// layer's input B T h / r and the fp32 logits 4 T V / t for the cross-entropy (Korthikanti 4.4's 4 s b h / t x
// (1 + V / h) with SP).
//
// Communication buffers: two data-parallel gradient buckets (one in its all-reduce or reduce-scatter while the backward
// fills the next; at most the stage's gradients) when d x c > 1; with sequence parallelism the all-gathered input
// B T h of the GEMM running; with context parallelism the K and V blocks coming round the ring, double-buffered,
// 2 x 2 B T hk / t; ZeRO-3 the gathered weights of the layer computing and the next one prefetched (two of the stage's
// largest units: a layer, the embedding or the output layer; at most the stage's weights).
#include "models/parallel/memory.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "models/parallel/schedule.hpp"
#include "models/parallel/transformer_ops.hpp"

namespace dtsim {
namespace {

// The model and layout as doubles, checked once.
struct Shape {
  double L, h, a, hk, f, V, E, s, positions, k_cap;
  bool gated, rms, bias, tied, flash, moe, dropout;
  int p, v, m, zero;
  double t, c, e, dp, edp;
  bool sp;
  PipelineSchedule schedule;
  Recompute recompute;
  double recompute_share;  // of the stage's layers (strategy.recompute_every)
  double B, weight_bytes, grad_bytes, optimizer_bytes, bucket_bytes;
  double T;  // tokens of one micro-batch on one rank: (s / c) b
  TransformerSpec spec;
  ShardShape shard;
};

void require(bool ok, const std::string& message) {
  if (!ok) throw InputError("memory model: " + message);
}

Shape shape_of(const MemoryInputs& in) {
  const TransformerSpec& md = in.model;
  const HybridSpec& ly = in.layout;
  require(md.layers > 0 && md.hidden > 0 && md.heads > 0 && md.seq_len > 0 && md.vocab > 0,
          "the model needs positive layers, hidden size, heads, sequence length and vocabulary");
  require(md.hidden % md.heads == 0, fmt::format("hidden size {} is not a multiple of {} heads", md.hidden, md.heads));
  require(md.kv_heads >= 0 && md.ffn >= 0 && md.positions >= 0 && md.experts >= 0 && md.capacity_factor >= 0,
          "kv_heads, ffn, positions, experts and capacity_factor must not be negative");
  require(md.kv_heads == 0 || md.heads % md.kv_heads == 0,
          fmt::format("{} heads are not a multiple of {} kv_heads", md.heads, md.kv_heads));
  require(md.experts == 0 || (md.top_k >= 1 && md.top_k <= md.experts),
          fmt::format("top_k {} must be between 1 and the {} experts", md.top_k, md.experts));
  require(ly.tensor > 0 && ly.pipeline > 0 && ly.expert > 0 && ly.context > 0 && ly.micro_batch > 0 &&
              ly.virtual_stages > 0,
          "tensor, pipeline, expert, context, micro_batch and virtual_stages must be positive");
  require(ly.data > 0, "the data-parallel size must be resolved (> 0) before the memory model");
  require(ly.zero >= 0 && ly.zero <= 3, fmt::format("ZeRO stage {} is not 0, 1, 2 or 3", ly.zero));
  require(in.optimizer_states >= 0 && in.bucket_bytes >= 0, "optimizer_states and bucket_bytes must not be negative");
  const bool interleaved = ly.schedule == PipelineSchedule::Interleaved;
  const int chunks = interleaved ? ly.virtual_stages : 1;
  require(md.layers % (ly.pipeline * chunks) == 0,
          fmt::format("{} layers do not split evenly over {} pipeline stages x {} virtual stages", md.layers,
                      ly.pipeline, chunks));
  const int dp = ly.data * ly.context;
  require(dp % ly.expert == 0,
          fmt::format("expert parallel size {} does not divide data x context = {}", ly.expert, dp));
  require(ly.expert == 1 || (md.experts > 0 && md.experts % ly.expert == 0),
          fmt::format("expert parallel size {} needs a number of experts it divides (model has {})", ly.expert,
                      md.experts));
  require(ly.global_batch == 0 || ly.global_batch % (ly.micro_batch * ly.data) == 0,
          fmt::format("global batch {} is not a multiple of micro_batch x data = {}", ly.global_batch,
                      ly.micro_batch * ly.data));
  const int m = ly.micro_batches();
  require(m >= 1, fmt::format("global batch {} gives no micro-batch per data-parallel rank", ly.global_batch));

  Shape x{};
  x.L = md.layers;
  x.h = md.hidden;
  x.a = md.heads;
  x.hk = md.hidden * static_cast<double>(md.kv_heads > 0 ? md.kv_heads : md.heads) / md.heads;
  x.f = md.ffn > 0 ? md.ffn : 4.0 * md.hidden;
  x.V = md.vocab;
  x.E = md.experts;
  x.s = md.seq_len;
  x.positions = md.rotary ? 0 : (md.positions > 0 ? md.positions : md.seq_len);
  x.k_cap = md.top_k * (md.capacity_factor > 0 ? md.capacity_factor : 1.0);
  x.gated = md.gated_mlp;
  x.rms = md.rms_norm;
  x.bias = md.bias;
  x.tied = md.tied_embeddings;
  x.flash = md.flash_attention;
  x.moe = md.experts > 0;
  x.dropout = in.dropout;
  x.p = ly.pipeline;
  x.v = chunks;
  x.m = m;
  x.zero = ly.zero;
  x.t = ly.tensor;
  x.c = ly.context;
  x.e = ly.expert;
  x.dp = dp;
  x.edp = static_cast<double>(dp) / ly.expert;
  x.sp = ly.sequence_parallel;
  x.schedule = ly.schedule;
  x.recompute = ly.recompute;
  x.recompute_share = ly.recompute_share(md.layers / ly.pipeline);
  x.B = dtype_bytes(in.dtype);
  const bool mixed = x.B < 4;
  const bool autocast = mixed && in.autocast;
  x.weight_bytes = autocast ? 4 + x.B : x.B;
  x.grad_bytes = dtype_bytes(in.grad_dtype);
  x.optimizer_bytes = (mixed && !autocast ? 4.0 : 0.0) + 4.0 * in.optimizer_states;
  x.bucket_bytes = in.bucket_bytes;
  x.T = x.s / x.c * ly.micro_batch;
  x.spec = md;
  x.shard = shard_shape(ly, x.B);
  return x;
}

// ---- parameters on one rank -------------------------------------------------------------------------------------

struct StageParams {
  double dense = 0;         // sharded by ZeRO over d x c
  double expert = 0;        // sharded by ZeRO over d x c / e
  double largest_unit = 0;  // a layer, the embedding or the output layer: what ZeRO-3 gathers at once
};

// The rank's parameters come from the kernels' own accounting (transformer_ops.hpp: block_params,
// embedding_params, head_params), so the memory model and the plan's optimizer step count the same.
StageParams stage_params(const Shape& x, int stage) {
  StageParams sp;
  const BlockParams block = block_params(x.spec, x.shard);
  const double layers = x.L / x.p;
  sp.dense = layers * block.dense;
  sp.expert = layers * block.expert;
  sp.largest_unit = block.dense + block.expert;
  if (stage == 0) {
    const double embedding = embedding_params(x.spec, x.shard);
    sp.dense += embedding;
    sp.largest_unit = std::max(sp.largest_unit, embedding);
  }
  if (stage == x.p - 1) {
    // With tied embeddings and one stage, the output layer is the embedding itself.
    const double output = head_params(x.spec, x.shard) - (x.tied && x.p == 1 && x.spec.lm_head ? x.V * x.h / x.t : 0);
    sp.dense += output;
    sp.largest_unit = std::max(sp.largest_unit, output);
  }
  return sp;
}

// ---- activations on one rank, per micro-batch -------------------------------------------------------------------

double replicated(const Shape& x) { return x.sp ? x.t : 1; }

// The attention core's scores (what selective recompute drops).
double score_bytes(const Shape& x) {
  if (x.flash) return 4 * x.a * x.T / x.t;
  const double scores = x.a * x.T * x.s / x.t;
  return x.dropout ? (2 * x.B + 1) * scores : x.B * scores;
}

// torchtitan's per-op policy (transformer_ops.hpp, Recompute) keeps the block's input and the outputs of q, v, w1 and
// (gated) w2, of the attention kernel with its log-sum-exp, and of the sequence-parallel reduce-scatters; w2's is the
// rank's whole T h partial sum before its reduce-scatter.
double op_policy_bytes(const Shape& x) {
  const double r = replicated(x);
  double kept = x.B * x.T * x.h / r + x.B * x.T * (x.h + x.hk) / x.t + x.B * x.T * x.f / x.t;
  if (x.flash) kept += x.B * x.T * x.h / x.t + 4 * x.a * x.T / x.t;
  if (x.gated) kept += x.B * x.T * x.h;
  if (x.sp) kept += 2 * x.B * x.T * x.h / x.t;
  return kept;
}

double layer_bytes(const Shape& x, Recompute mode) {
  const double r = replicated(x);
  const double mask = x.dropout ? 1 : 0;
  const double hidden = x.B * x.T * x.h / r;  // one B T h tensor of a replicated region
  if (mode == Recompute::Full) return hidden;
  if (mode == Recompute::SelectiveOp) return op_policy_bytes(x);
  const double qkv = x.B * x.T * (x.flash ? x.h + 2 * x.hk : 3 * x.h) / x.t;
  double attention = 2 * hidden + qkv + x.B * x.T * x.h / x.t + mask * x.T * x.h / r;
  if (mode == Recompute::None) attention += score_bytes(x);
  const double ffn_terms = x.B * x.T * ((x.gated ? 2 : 1) * x.f + x.f) / x.t;
  double mlp = 2 * hidden + mask * x.T * x.h / r;
  if (x.moe) {
    mlp += 4 * x.T * x.E / r + x.k_cap * (x.B * x.T * x.h + ffn_terms);
  } else {
    mlp += ffn_terms;
  }
  return attention + mlp;
}

// The one layer recomputed during backward, beyond what is stored for it.
double recompute_working_set(const Shape& x) {
  if (x.recompute == Recompute::None || x.recompute_share <= 0) return 0;
  return layer_bytes(x, Recompute::None) - layer_bytes(x, x.recompute);
}

// A layer's stored activations, averaged over the stage's layers when only every n-th recomputes.
double stored_bytes(const Shape& x) {
  return x.recompute_share * layer_bytes(x, x.recompute) + (1 - x.recompute_share) * layer_bytes(x, Recompute::None);
}

// Chunk-micro-batches the stage holds at its peak: its schedule's own order (schedule.hpp), so
// the counts are GPipe's m, 1F1B's min(p - i, m) and Megatron's interleaved warm-up + 1 exactly as
// the plans run them (all m v when m = p).
int in_flight(const Shape& x, int stage) {
  return peak_in_flight(find_schedule(x.schedule).order(stage, x.p, x.m, x.v));
}

// ---- communication buffers --------------------------------------------------------------------------------------

double communication_bytes(const Shape& x, const StageParams& sp) {
  double bytes = 0;
  if (x.dp > 1) {
    bytes += 2 * std::min(x.bucket_bytes, x.grad_bytes * (sp.dense + sp.expert));
    if (x.zero >= 3) bytes += x.weight_bytes * std::min(2 * sp.largest_unit, sp.dense + sp.expert);
  }
  if (x.sp && x.t > 1) bytes += x.B * x.T * x.h;
  if (x.c > 1) bytes += 2 * 2 * x.B * x.T * x.hk / x.t;
  return bytes;
}

}  // namespace

double layer_activation_bytes(const MemoryInputs& in) {
  const Shape x = shape_of(in);
  return stored_bytes(x);
}

std::vector<StageMemory> stage_memory(const MemoryInputs& in) {
  const Shape x = shape_of(in);
  const double stored = stored_bytes(x);
  const double r = replicated(x);
  const double mask = x.dropout ? 1 : 0;
  const double layers_per_chunk = x.L / (x.p * x.v);
  std::vector<StageMemory> stages;
  for (int i = 0; i < x.p; ++i) {
    StageMemory st;
    st.stage = i;
    st.micro_batches_in_flight = in_flight(x, i);
    st.layers = st.micro_batches_in_flight * layers_per_chunk;

    const StageParams sp = stage_params(x, i);
    MemoryBreakdown& m = st.bytes;
    m.parameters = x.weight_bytes * (sp.dense / (x.zero >= 3 ? x.dp : 1) + sp.expert / (x.zero >= 3 ? x.edp : 1));
    m.gradients = x.grad_bytes * (sp.dense / (x.zero >= 2 ? x.dp : 1) + sp.expert / (x.zero >= 2 ? x.edp : 1));
    m.optimizer = x.optimizer_bytes * (sp.dense / (x.zero >= 1 ? x.dp : 1) + sp.expert / (x.zero >= 1 ? x.edp : 1));

    m.activations = st.layers * stored + recompute_working_set(x);
    if (i == 0) {
      const double micro_batches = st.layers / (x.L / x.p);  // micro-batches' worth of the stage's layers
      m.activations += micro_batches * (8 * x.T + mask * x.T * x.h / r);
    }
    if (i == x.p - 1) {
      const double held = x.schedule == PipelineSchedule::GPipe ? x.m : 1;
      m.activations += held * (2 * x.B * x.T * x.h / r + (x.spec.lm_head ? 4 * x.T * x.V / x.t : 0));
    }
    m.communication = communication_bytes(x, sp);
    stages.push_back(st);
  }
  return stages;
}

}  // namespace dtsim
