// Workload models: a network as a table of layers with parameters, FLOPs and activations.
// FLOPs everywhere in dtsim are floating-point operations (1 multiply-add = 2 FLOPs), per sample.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dtsim {

struct Layer {
  std::string name;
  double params = 0;       // trainable parameters
  double fwd_flops = 0;    // forward FLOPs per sample
  double bwd_flops = 0;    // backward FLOPs per sample (gradients w.r.t. inputs and weights)
  double activations = 0;  // output activation elements per sample (multiply by dtype bytes)
};

struct Workload {
  std::string name;
  std::string source;  // where the numbers come from
  std::string input;   // the input one sample is, e.g. "3x224x224" or "2048 tokens"
  std::vector<Layer> layers;

  double total_params() const;
  double fwd_flops_per_sample() const;
  double bwd_flops_per_sample() const;
  double activations_per_sample() const;
};

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
  int ffn = 0;               // feed-forward width; 0 means 4 * hidden
  bool encoder = false;      // BERT-style: token-type embeddings and a pooler; else GPT-style
  bool tied_embeddings = true;  // the output projection shares the token embedding
  int positions = 0;         // learned position embeddings; 0 means seq_len
};

Workload make_transformer(const TransformerSpec& spec, std::string name);

// A workload given by its totals: params and FLOPs per sample, spread over `layers` equal layers.
Workload make_synthetic(double params, double fwd_flops_per_sample, int layers);

// The zoo: names of the models compiled in (models/data/models/*.yaml), sorted.
std::vector<std::string> zoo_model_names();
// Loads a zoo model by name; throws InputError naming the valid models if it is not there.
Workload load_zoo_model(std::string_view name);
// Loads a user's layer table in the zoo's file format; throws InputError with file:line:col.
Workload load_model_file(const std::string& path);
// Parses a layer table from text (the zoo format); `origin` names it in errors.
Workload parse_model_text(std::string_view text, const std::string& origin);

}  // namespace dtsim
