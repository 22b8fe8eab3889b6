// Transformers generated from their shape (model.name: transformer, the zoo's GPT and BERT rows and its
// shape-defined models such as llama3_70b).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "models/zoo/attention.hpp"
#include "models/zoo/workload.hpp"

namespace dtsim {

// A decoder (GPT-style) or encoder (BERT-style) transformer, generated from its shape. One sample is one sequence of
// seq_len tokens. Rows: embed, then attn_I and mlp_I (moe_I with experts) per block, each with the norm before it,
// then ln_f (decoder) or pooler (encoder), then lm_head (the vocabulary projection; no params when tied). Forward
// FLOPs: 2 per parameter per token, plus the attention core 2*s*d per token per layer for a causal decoder (Kaplan
// et al. 2020) or 4*s*d for an encoder, plus 2*d*vocab per token in lm_head; the lookup in embed counts 0 and the
// pooler runs once per sequence. Backward = 2 x forward. scripts/gen_zoo.py writes the zoo's GPT and BERT tables
// with the same rules. The larger decoders' fields change the parameters (and so the FLOPs) as follows:
// - kv_heads: K and V are d x (kv_heads x head_dim) each, head_dim = hidden / heads (Q and the output projection
//   stay d x d); kv_heads must divide heads. The attention core is the same: every query head still attends.
// - gated_mlp: three d x ffn matrices (gate, up, down; biases ffn, ffn, d) instead of two (biases ffn, d).
// - rms_norm: one weight vector of d per norm instead of LayerNorm's weight and bias (2d).
// - bias = false: no biases in the linear layers (Q, K, V, output, the MLP's matrices, the pooler).
// - rotary: no position-embedding parameters (positions must then be 0).
// - experts > 0: the MLP row becomes moe_I: its norm, a router d x experts (no bias) and `experts` copies of the
//   MLP's matrices. Its forward FLOPs per token: 2 per norm parameter + router 2*d*experts + top_k x one expert's
//   MLP FLOPs: the parameters count all the experts, the FLOPs only the routed ones. top_k is in 1..experts.
//   capacity_factor (the tokens an expert takes, hence dropped or padded tokens) is left to the hybrid plans: the
//   table counts every token routed to top_k experts.
// - flash_attention: the same table either way (an implementation choice for the kernels of hybrid plans and of
//   data-parallel ones, core/plan/transformer_pass.hpp).
// - window > 0: sliding-window (local) attention on window_layers of the blocks (Mistral 7B v0.1: 4096 on all;
//   Gemma 2 and GPT-OSS alternate local and global blocks: 0.5; Gemma 3: 5/6): each query attends to its last
//   `window` keys, itself included. A windowed block's attention core is 4*d*keys(s, w) per token
//   (causal_keys_per_query in models/zoo/attention.hpp) instead of 2*s*d; dtsim's blocks are all alike, so each block's
//   row counts the window_layers-weighted mean of the windowed and the full cost. A window of the whole sequence or
//   more is full causal attention (the same count exactly). Encoders are refused: their window would be two-sided
//   (Longformer's, ModernBERT's local layers), a mask no fit of models/zoo/attention.hpp covers. The table counts
//   the window whether or not the plans run flash attention (the FLOPs the model needs); the kernels of unfused
//   attention compute the full scores and mask them (models/parallel/transformer_ops.hpp).
// - lm_head = false: a fine-tuning task head instead of the vocabulary projection (e.g. SQuAD's d x 2 span
//   classifier: its parameters and FLOPs are under 0.001 % of BERT-Large's and are not counted): the lm_head row
//   has no parameters, FLOPs or activations, and plans run no output layer or cross-entropy.
struct TransformerSpec {
  bool operator==(const TransformerSpec&) const = default;
  int layers = 12;
  int hidden = 768;
  int heads = 12;
  int seq_len = 1024;
  int vocab = 50257;
  int ffn = 0;                  // feed-forward width; 0 means 4 * hidden
  bool encoder = false;         // BERT-style: token-type embeddings and a pooler; else GPT-style
  bool tied_embeddings = true;  // the output projection shares the token embedding
  int positions = 0;            // learned position embeddings; 0 means seq_len
  // Shapes of the larger decoders (Megatron GPT, Llama, Mixtral):
  int kv_heads = 0;              // key/value heads (grouped-query attention); 0 means heads
  bool gated_mlp = false;        // SwiGLU: three d x ffn matrices (gate, up, down) instead of GeLU's two
  bool rms_norm = false;         // RMSNorm (one weight vector) instead of LayerNorm (weight and bias)
  bool bias = true;              // linear layers have biases
  bool rotary = false;           // rotary position embeddings (no parameters) instead of learned ones
  int experts = 0;               // mixture of experts: experts per MLP (0: a dense MLP)
  int top_k = 2;                 // experts each token is routed to
  double capacity_factor = 1.0;  // tokens an expert takes: capacity_factor x tokens x top_k / experts; 0: dropless
  bool flash_attention = true;   // a fused attention kernel; false: QK^T, softmax and AV as separate kernels
  bool lm_head = true;           // the vocabulary projection and its loss; false: a task head of negligible size
  int window = 0;                // sliding-window attention: each query's last `window` keys; 0: full attention
  double window_layers = 1.0;    // the share of blocks whose attention is windowed, in (0, 1]
};

// Whether the shape's attention is windowed anywhere: window > 0 and shorter than the sequence (a window of the whole
// sequence or more is full causal attention).
bool has_window(const TransformerSpec& spec);

// What is wrong with a shape: the field to change (a name of models/zoo/transformer_fields.hpp) and why, written to
// follow "key: ", e.g. {"kv_heads", "5 does not divide the 32 heads (...)"}. The callers add where it was written.
struct ShapeProblem {
  std::string_view field;
  std::string message;
};
// The first problem of a shape (a field below its minimum, heads not dividing hidden, kv_heads not dividing heads,
// top_k outside 1..experts, learned positions with rotary, a window on an encoder), or nullopt
// when it makes a transformer.
std::optional<ShapeProblem> shape_problem(const TransformerSpec& spec);

// The layer table of the shape (rules above); throws InputError "transformer FIELD: ..." for a bad shape.
Workload make_transformer(const TransformerSpec& spec, std::string name);

}  // namespace dtsim
