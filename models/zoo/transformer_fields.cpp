// The table of TransformerSpec's fields, with the minimum of each and the doc the scenario keys show.
#include "models/zoo/transformer_fields.hpp"

#include <array>

#include <fmt/format.h>

#include "core/base/overloaded.hpp"

namespace dtsim {
namespace {

using T = TransformerSpec;

// Minimums: the sizes are at least 1; the counts whose 0 means "the usual value" (ffn, positions, kv_heads) or
// "none" (experts, window) at least 0; top_k at least 1 (checked against experts by shape_problem); window_layers a
// share, above 0 (shape_problem) and at most 1.
// Maximums keep every product of the shape finite and far from what memory can hold, yet stay well beyond
// published models: DeepNet trained 1,000 layers (Wang et al. 2022, "DeepNet: Scaling Transformers to 1,000
// Layers"); the widest dense models have hidden 20,480 (MT-NLG 530B) and ffn 4 x that; Switch-C has 2,048 experts
// (Fedus et al. 2022); vocabularies reach 256k (Gemma) and contexts millions of tokens.
const std::array<TransformerField, 21> kFields{{
    {"layers", &T::layers, 1, 10000, "Transformer blocks."},
    {"hidden", &T::hidden, 1, 1048576, "Hidden size d_model."},
    {"heads", &T::heads, 1, 65536, "Attention heads (must divide hidden)."},
    {"seq_len", &T::seq_len, 1, 16777216, "Tokens per sample (sequence length)."},
    {"vocab", &T::vocab, 1, 16777216, "Vocabulary size."},
    {"ffn", &T::ffn, 0, 4194304, "Feed-forward width; 0 means 4 x hidden."},
    {"encoder", &T::encoder, 0, 1, "BERT-style encoder (token types, pooler) instead of GPT-style."},
    {"tied_embeddings", &T::tied_embeddings, 0, 1,
     "The vocabulary projection shares the token embedding (no parameters of its own)."},
    {"positions", &T::positions, 0, 16777216, "Learned position embeddings; 0 means seq_len (must be 0 with rotary)."},
    {"kv_heads", &T::kv_heads, 0, 65536,
     "Key/value heads (grouped-query attention; must divide heads); 0 means heads."},
    {"gated_mlp", &T::gated_mlp, 0, 1, "SwiGLU MLP: three d x ffn matrices (gate, up, down) instead of GeLU's two."},
    {"rms_norm", &T::rms_norm, 0, 1, "RMSNorm (one weight vector per norm) instead of LayerNorm (weight and bias)."},
    {"bias", &T::bias, 0, 1, "Linear layers have biases."},
    {"rotary", &T::rotary, 0, 1, "Rotary position embeddings (no parameters) instead of learned ones."},
    {"experts", &T::experts, 0, 65536,
     "Mixture of experts: experts per MLP (parameters count them all, FLOPs the top_k routed); 0 means a dense MLP."},
    {"top_k", &T::top_k, 1, 65536, "Experts each token is routed to (1..experts; read only when experts > 0)."},
    {"capacity_factor", &T::capacity_factor, 0, 1000,
     "Tokens an expert takes: capacity_factor x tokens x top_k / experts; 0 means dropless (hybrid plans; the layer "
     "table counts every routed token)."},
    {"flash_attention", &T::flash_attention, 0, 1,
     "A fused attention kernel; false: QK^T, softmax and AV as separate kernels (the kernels plans run; the layer "
     "table is the same)."},
    {"lm_head", &T::lm_head, 0, 1,
     "The vocabulary projection (language-model head) and its loss; false: a fine-tuning head of negligible size "
     "(e.g. SQuAD's span classifier) instead."},
    {"window", &T::window, 0, 16777216,
     "Sliding-window (local) attention: each query attends to its last `window` keys, itself included, on "
     "window_layers of the blocks (Mistral 7B v0.1: 4096); 0 means full attention, as does a window of the whole "
     "sequence. A causal decoder's only; not with context parallelism."},
    {"window_layers", &T::window_layers, 0, 1,
     "The share of blocks whose attention is windowed, more than 0 and at most 1 (Gemma 2 and GPT-OSS alternate local "
     "and global "
     "blocks: 0.5; Gemma 3: 0.8333); each block costs the share's mean of a windowed and a full attention core. Read "
     "only when window > 0.",
     true},
}};

}  // namespace

std::span<const TransformerField> transformer_fields() { return kFields; }

const TransformerField* find_transformer_field(std::string_view name) {
  for (const auto& f : kFields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> transformer_field_names() {
  std::vector<std::string> names;
  names.reserve(kFields.size());
  for (const auto& f : kFields) names.emplace_back(f.name);
  return names;
}

std::string field_text(const TransformerField& f, const TransformerSpec& spec) {
  return std::visit(Overloaded{[&](int T::*m) { return fmt::format("{}", spec.*m); },
                               [&](bool T::*m) { return std::string(spec.*m ? "true" : "false"); },
                               [&](double T::*m) { return fmt::format("{:g}", spec.*m); }},
                    f.member);
}

std::string_view field_type(const TransformerField& f) {
  return std::visit(
      Overloaded{[](int T::*) { return std::string_view("count"); }, [](bool T::*) { return std::string_view("bool"); },
                 [](double T::*) { return std::string_view("number"); }},
      f.member);
}

void copy_field(const TransformerField& f, const TransformerSpec& from, TransformerSpec& to) {
  std::visit([&](auto m) { to.*m = from.*m; }, f.member);
}

}  // namespace dtsim
