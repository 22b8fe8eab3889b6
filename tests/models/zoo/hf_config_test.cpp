// Hugging Face config.json files read as transformer shapes (models/zoo/hf_config.hpp). Each family's config is
// written here as its model's repository publishes it, and the shape's parameter count is held to the count its model
// card gives (the safetensors total), less or more only what the source line says is counted differently. What
// cannot be mapped is refused in one line naming the file, the line and the key.
#include <catch2/catch.hpp>

#include <string>

#include "core/base/error.hpp"
#include "models/zoo/hf_config.hpp"
#include "models/zoo/model_file.hpp"
#include "models/zoo/workload.hpp"

using namespace dtsim;

namespace {

// meta-llama/Meta-Llama-3-8B
constexpr const char* kLlama3_8b = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 128000,
  "eos_token_id": 128001, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
  "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 32,
  "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
  "rope_scaling": null, "rope_theta": 500000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.40.0.dev0", "use_cache": true, "vocab_size": 128256
})";

// mistralai/Mistral-7B-v0.1
constexpr const char* kMistral7b = R"({
  "architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
  "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 32768,
  "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "transformers_version": "4.34.0.dev0", "use_cache": true, "vocab_size": 32000
})";

// mistralai/Mixtral-8x7B-v0.1
constexpr const char* kMixtral = R"({
  "architectures": ["MixtralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2,
  "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
  "max_position_embeddings": 32768, "model_type": "mixtral", "num_attention_heads": 32, "num_experts_per_tok": 2,
  "num_hidden_layers": 32, "num_key_value_heads": 8, "num_local_experts": 8, "output_router_logits": false,
  "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.02, "sliding_window": null,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.36.0.dev0",
  "use_cache": true, "vocab_size": 32000
})";

// Qwen/Qwen2-7B
constexpr const char* kQwen2_7b = R"({
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151643,
  "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
  "max_position_embeddings": 131072, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
  "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
  "sliding_window": 131072, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.37.2", "use_cache": true, "use_sliding_window": false, "vocab_size": 152064
})";

// openai-community/gpt2
constexpr const char* kGpt2 = R"({
  "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1, "bos_token_id": 50256,
  "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02, "layer_norm_epsilon": 1e-05,
  "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024,
  "resid_pdrop": 0.1, "summary_activation": null, "summary_first_dropout": 0.1, "summary_proj_to_labels": true,
  "summary_type": "cls_index", "summary_use_proj": true, "vocab_size": 50257
})";

// EleutherAI/gpt-neox-20b
constexpr const char* kNeox20b = R"({
  "architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu_fast",
  "hidden_size": 6144, "initializer_range": 0.02, "intermediate_size": 24576, "layer_norm_eps": 1e-05,
  "max_position_embeddings": 2048, "model_type": "gpt_neox", "num_attention_heads": 64, "num_hidden_layers": 44,
  "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": false, "torch_dtype": "float16",
  "transformers_version": "4.23.0.dev0", "use_cache": true, "use_parallel_residual": true, "vocab_size": 50432
})";

// tiiuae/falcon-7b
constexpr const char* kFalcon7b = R"({
  "alibi": false, "apply_residual_connection_post_layernorm": false, "architectures": ["FalconForCausalLM"],
  "attention_dropout": 0.0, "bias": false, "bos_token_id": 11, "eos_token_id": 11, "hidden_dropout": 0.0,
  "hidden_size": 4544, "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "falcon",
  "multi_query": true, "new_decoder_architecture": false, "num_attention_heads": 71, "num_hidden_layers": 32,
  "parallel_attn": true, "torch_dtype": "bfloat16", "vocab_size": 65024
})";

double params(const HfModel& m) { return make_transformer(m.shape, m.name).total_params(); }

std::string refusal(const std::string& text) {
  try {
    parse_hf_config(text, "config.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("each family's config gives its model card's parameter count", "[hf_config]") {
  const HfModel llama = parse_hf_config(kLlama3_8b, "Meta-Llama-3-8B/config.json");
  CHECK(params(llama) == 8030261248.0);
  CHECK(llama.shape == *zoo_transformer("llama3_8b"));  // the zoo's entry, written from the same card
  CHECK(llama.name == "Meta-Llama-3-8B");               // the file's folder (no _name_or_path)
  CHECK(llama.sequence_key == "max_position_embeddings");
  CHECK(llama.shape.window == 0);

  const HfModel mistral = parse_hf_config(kMistral7b, "config.json");
  CHECK(params(mistral) == 7241732096.0);
  CHECK(mistral.shape.seq_len == 32768);
  CHECK(mistral.shape.window == 4096);  // sliding_window, on every block
  CHECK(mistral.shape.window_layers == 1);

  const HfModel mixtral = parse_hf_config(kMixtral, "config.json");
  CHECK(params(mixtral) == 46702792704.0);
  CHECK(mixtral.shape.experts == 8);
  CHECK(mixtral.shape.top_k == 2);
  CHECK(mixtral.shape.capacity_factor == 0);  // dropless
  CHECK(mixtral.shape.window == 0);           // null

  // Qwen2's q, k and v biases are left out, and said so: h + 2 kv_dim a block.
  const HfModel qwen = parse_hf_config(kQwen2_7b, "config.json");
  CHECK(params(qwen) + 28 * (3584 + 2 * 512) == 7615616512.0);
  CHECK(qwen.source.find("biases left out") != std::string::npos);
  CHECK(qwen.shape.window == 0);  // use_sliding_window: false

  const HfModel gpt2 = parse_hf_config(kGpt2, "config.json");
  CHECK(params(gpt2) == 124439808.0);
  CHECK(gpt2.shape.tied_embeddings);
  CHECK_FALSE(gpt2.shape.rotary);
  CHECK(gpt2.shape.ffn == 0);  // n_inner absent: 4 h

  CHECK(params(parse_hf_config(kNeox20b, "config.json")) == 20554567680.0);

  // Falcon-7B: multi-query attention, tied embeddings, one LayerNorm a block (counted as two, and said so).
  const HfModel falcon = parse_hf_config(kFalcon7b, "config.json");
  CHECK(falcon.shape.kv_heads == 1);
  CHECK(falcon.shape.seq_len == 2048);  // FalconConfig's default
  CHECK(params(falcon) - 32 * 2 * 4544 == 6921720704.0);
  CHECK(falcon.source.find("two LayerNorms") != std::string::npos);
}

TEST_CASE("what cannot be mapped is refused in one line with the file, the line and the key", "[hf_config]") {
  // DeepSeek-V3's multi-head latent attention.
  const std::string deepseek = R"({
  "model_type": "deepseek_v3",
  "hidden_size": 7168,
  "kv_lora_rank": 512,
  "n_shared_experts": 1
})";
  CHECK(refusal(deepseek).rfind("config.json:4: error: kv_lora_rank: multi-head latent attention", 0) == 0);
  // Qwen1.5-MoE's shared expert.
  CHECK(refusal(R"({"model_type": "qwen2_moe",
"shared_expert_intermediate_size": 5632})")
            .rfind("config.json:2: error: shared_expert_intermediate_size: shared experts", 0) == 0);
  CHECK(refusal(R"({"model_type": "bert", "hidden_size": 768})")
            .find("model_type: 'bert' is not a family dtsim maps "
                  "(valid: llama, mistral, mixtral") != std::string::npos);
  // Qwen3-0.6B's heads of 128 over a hidden width of 1024 with 16 heads.
  std::string qwen3(kLlama3_8b);
  qwen3.replace(qwen3.find("\"llama\""), 7, "\"qwen3\"");
  qwen3.replace(qwen3.find("\"hidden_size\": 4096"), 19, "\"hidden_size\": 1024, \"head_dim\": 128");
  CHECK(refusal(qwen3).find("head_dim: 128 is not hidden / heads (1024 / 32)") != std::string::npos);
  std::string missing(kLlama3_8b);
  missing.replace(missing.find("\"vocab_size\""), 12, "\"vocab\"");
  CHECK(refusal(missing).find("vocab_size: missing (the vocabulary)") != std::string::npos);
  std::string text(kLlama3_8b);
  text.replace(text.find("\"num_key_value_heads\": 8"), 24, "\"num_key_value_heads\": \"8\"");
  CHECK(refusal(text).find(":5: error: num_key_value_heads: expected a whole number") != std::string::npos);
  CHECK(refusal("[1, 2]").find("not a JSON object") != std::string::npos);
  std::string sparse(kMixtral);
  sparse.replace(sparse.find("\"mixtral\""), 9, "\"qwen3_moe\"");
  sparse.replace(sparse.find("\"num_local_experts\""), 19, "\"num_experts\"");
  sparse.replace(sparse.find("\"output_router_logits\""), 22,
                 "\"moe_intermediate_size\": 768, \"decoder_sparse_step\": 2, \"x\"");
  CHECK(refusal(sparse).find("decoder_sparse_step: MoE layers every other block are not modelled") !=
        std::string::npos);
}

TEST_CASE("an imported shape written as a model file reads back as the same shape", "[hf_config]") {
  for (const char* config : {kLlama3_8b, kMistral7b, kMixtral, kGpt2, kFalcon7b}) {
    const HfModel m = parse_hf_config(config, "config.json");
    const ModelDefinition back = parse_model_definition(model_file_text(m.name, m.source, m.shape), "imported.yaml");
    REQUIRE(back.shape);
    CHECK(*back.shape == m.shape);
    CHECK(back.workload.name == m.name);
    CHECK(back.workload.total_params() == params(m));
    CHECK(back.workload.source.rfind(m.source, 0) == 0);
  }
}

namespace {

// A config with one key's value replaced: `"key": old` becomes `"key": value` (value written as JSON).
std::string with(std::string text, const std::string& key, const std::string& value) {
  const size_t at = text.find("\"" + key + "\"");
  REQUIRE(at != std::string::npos);
  const size_t end = text.find_first_of(",}", at);
  text.replace(at, end - at, "\"" + key + "\": " + value);
  return text;
}

}  // namespace

TEST_CASE("a sliding window is read as the modeling code runs it, on the blocks it gives it", "[hf_config][window]") {
  // Mistral: every block; MistralConfig's 4096 when the key is absent, none when it is null.
  std::string no_key(kMistral7b);
  no_key.replace(no_key.find("\"sliding_window\": 4096, "), 24, "");
  CHECK(parse_hf_config(no_key, "config.json").shape.window == 4096);
  CHECK(parse_hf_config(with(kMistral7b, "sliding_window", "null"), "config.json").shape.window == 0);
  CHECK(parse_hf_config(with(kMistral7b, "sliding_window", "1024"), "config.json").shape.window == 1024);

  // Qwen2 with use_sliding_window: the blocks from max_window_layers up (i >= max_window_layers), 28 - 21 of 28.
  const std::string qwen = with(with(kQwen2_7b, "use_sliding_window", "true"), "sliding_window", "4096");
  const TransformerSpec all_full = parse_hf_config(qwen, "config.json").shape;  // max_window_layers 28 of 28 layers
  CHECK(all_full.window == 0);
  const TransformerSpec top7 = parse_hf_config(with(qwen, "max_window_layers", "21"), "config.json").shape;
  CHECK(top7.window == 4096);
  CHECK(top7.window_layers == 0.25);
  const TransformerSpec every = parse_hf_config(with(qwen, "max_window_layers", "0"), "config.json").shape;
  CHECK(every.window_layers == 1);
  // layer_types, when the config lists them, say which blocks: 7 of 28 here too.
  std::string types = "[";
  for (int i = 0; i < 28; ++i)
    types += std::string(i ? ", " : "") + (i % 4 == 3 ? "\"sliding_attention\"" : "\"full_attention\"");
  const TransformerSpec listed =
      parse_hf_config(with(qwen, "max_window_layers", "0, \"layer_types\": " + types + "]"), "config.json").shape;
  CHECK(listed.window == 4096);
  CHECK(listed.window_layers == 0.25);
  CHECK(refusal(with(qwen, "max_window_layers", "0, \"layer_types\": [\"full_attention\"]"))
            .find("error: layer_types: expected a list of 28 entries, one a block (num_hidden_layers), got 1 "
                  "entries") != std::string::npos);
  std::string chunked = types;
  chunked.replace(chunked.find("full_attention"), 14, "chunked_attention");
  CHECK(refusal(with(qwen, "max_window_layers", "0, \"layer_types\": " + chunked + "]"))
            .find("error: layer_types: \"chunked_attention\" is not modelled") != std::string::npos);
}
