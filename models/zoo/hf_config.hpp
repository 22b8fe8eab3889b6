// A Hugging Face `config.json` read as a transformer shape (model.hf_config, `dtsim models import`): the decoder
// families whose blocks TransformerSpec describes, each field that changes FLOPs, memory or communication mapped,
// and what cannot be mapped refused in one line naming the file, the line and the key.
//
// One entry per `model_type` in hf_config.cpp's table (kFamilies): the keys its shape is read from, and the
// architecture its modeling code fixes (gated MLP, RMSNorm, rotary positions, biases, tied embeddings by default).
// How to add a family: add its entry (the keys its config class names, the defaults its modeling code takes when a
// key is absent), and a config of it to tests/models/zoo/hf_config_test.cpp with the parameter count its model card
// gives.
//
// Read from every family: the widths, layers, heads and key/value heads (grouped-query or multi-query attention),
// the vocabulary, the sequence (max_position_embeddings, n_positions), tie_word_embeddings, and a mixture of
// experts' experts and top-k (dropless, as Hugging Face's and Megatron-LM's routers run it by default).
// A sliding window (the families with a sliding_key: mistral, mixtral, qwen2, qwen3, qwen3_moe) becomes the shape's
// window (TransformerSpec::window, costed as models/parallel/transformer_ops.hpp says) on the share of blocks the
// family's modeling code gives it: every block for Mistral, Mixtral and Qwen3-MoE; for Qwen2 and Qwen3 the blocks
// from max_window_layers up (the bottom max_window_layers keep full attention: (layers - max_window_layers) / layers
// of them windowed), or those layer_types names "sliding_attention". Qwen's window needs use_sliding_window (absent:
// false, as its config class); a window of the whole sequence or more is full attention.
// Refused: a head_dim other than hidden / heads, shared experts, multi-head latent attention, MoE layers that are
// not every layer, and layer_types other than full_attention and sliding_attention. What the scenario then cannot
// run is refused where it is set (a window with context parallelism: models/parallel/layout_rules.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/zoo/transformer.hpp"

namespace dtsim {

struct HfModel {
  std::string name;    // the config's _name_or_path, else its model_type and file's folder ("llama (Llama-3-8B)")
  std::string source;  // the file, its model_type and what of it is left out, for the model's `source`
  TransformerSpec shape;
  std::string sequence_key;  // the key the shape's seq_len was read from ("max_position_embeddings")
};

// Reads a config.json; throws InputError "FILE:LINE: KEY: what is wrong (and what would be valid)".
HfModel load_hf_config(const std::string& path);
// The same from text; `origin` names it in errors.
HfModel parse_hf_config(std::string_view text, const std::string& origin);

// The model_type values the table maps, in its order.
std::vector<std::string_view> hf_model_types();

}  // namespace dtsim
