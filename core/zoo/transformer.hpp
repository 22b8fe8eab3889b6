// Transformers generated from their shape (model.name: transformer, and the zoo's GPT and BERT rows).
#pragma once

#include <string>

#include "core/zoo/workload.hpp"

namespace dtsim {

// A decoder (GPT-style) or encoder (BERT-style) transformer, generated from its shape. One sample is one sequence of
// seq_len tokens. Rows: embed, then attn_I and mlp_I per block (each with its layer norm), then ln_f (decoder) or
// pooler (encoder), then lm_head (the vocabulary projection; no params when tied). Forward FLOPs: 2 per parameter
// per token, plus the attention core 2*s*d per token per layer for a causal decoder (Kaplan et al. 2020) or 4*s*d
// for an encoder, plus 2*d*vocab per token in lm_head; the lookup in embed counts 0 and the pooler runs once per
// sequence. Backward = 2 x forward. scripts/gen_zoo.py writes the zoo's transformers with the same rules.
struct TransformerSpec {
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
};

Workload make_transformer(const TransformerSpec& spec, std::string name);

}  // namespace dtsim
