#include "models/zoo/hf_config.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/base/error.hpp"

namespace dtsim {
namespace {

using Json = nlohmann::json;

// One config.json: its keys read with the file and line in every error.
class Reader {
 public:
  Reader(const Json& j, std::string_view text, std::string origin) : j_(j), text_(text), origin_(std::move(origin)) {}

  [[noreturn]] void fail(std::string_view key, const std::string& message) const {
    throw InputError(SourceLocation{origin_, line_of(key), 0}, fmt::format("{}: {}", key, message));
  }
  // The key is there with a value other than null.
  bool has(std::string_view key) const {
    const auto it = j_.find(std::string(key));
    return it != j_.end() && !it->is_null();
  }
  // The key is there, null or not.
  bool contains(std::string_view key) const { return j_.contains(std::string(key)); }
  int count(std::string_view key, std::string_view what) const {
    if (!has(key)) fail(key, fmt::format("missing ({}): dtsim reads the shape from it", what));
    return count_at(key);
  }
  int count_or(std::string_view key, int absent) const { return has(key) ? count_at(key) : absent; }
  // A whole number that may be 0 (max_window_layers: none of the blocks).
  int whole_or(std::string_view key, int absent) const {
    if (!has(key)) return absent;
    const Json& v = j_.at(std::string(key));
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > 1'000'000'000) {
      fail(key, fmt::format("expected a whole number from 0 to 1e9, got {}", v.dump()));
    }
    return static_cast<int>(v.get<long long>());
  }
  bool flag_or(std::string_view key, bool absent) const {
    if (!has(key)) return absent;
    const Json& v = j_.at(std::string(key));
    if (!v.is_boolean()) fail(key, fmt::format("expected true or false, got {}", v.dump()));
    return v.get<bool>();
  }
  std::string text_or(std::string_view key, std::string absent) const {
    if (!has(key)) return absent;
    const Json& v = j_.at(std::string(key));
    return v.is_string() ? v.get<std::string>() : v.dump();
  }
  const Json& at(std::string_view key) const { return j_.at(std::string(key)); }
  const std::string& origin() const { return origin_; }

 private:
  int count_at(std::string_view key) const {
    const Json& v = j_.at(std::string(key));
    if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 1'000'000'000) {
      fail(key, fmt::format("expected a whole number from 1 to 1e9, got {}", v.dump()));
    }
    return static_cast<int>(v.get<long long>());
  }
  // The line of the key's first appearance ("key" then a colon), 0 when it is not in the text.
  int line_of(std::string_view key) const {
    const std::string quoted = fmt::format("\"{}\"", key);
    for (size_t at = text_.find(quoted); at != std::string_view::npos; at = text_.find(quoted, at + 1)) {
      const size_t next = text_.find_first_not_of(" \t\r\n", at + quoted.size());
      if (next != std::string_view::npos && text_[next] == ':') {
        return 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
      }
    }
    return 0;
  }
  const Json& j_;
  std::string_view text_;
  std::string origin_;
};

// How a family's key/value heads are read.
enum class KvHeads {
  Key,     // num_key_value_heads, else the attention heads
  Falcon,  // new_decoder_architecture: num_kv_heads; else multi_query: 1; else the attention heads
  None,    // every head has its own K and V (GPT-2, GPT-NeoX)
};

// The keys a config class names its shape by: Hugging Face's usual names, or a family's own (GPT-2's n_embd, ...).
struct ShapeKeys {
  std::string_view hidden = "hidden_size", layers = "num_hidden_layers", heads = "num_attention_heads",
                   ffn = "intermediate_size", vocab = "vocab_size", positions = "max_position_embeddings";
};

// A model_type's shape: the keys its config class names, and what its modeling code fixes (by default a Llama-style
// decoder: SwiGLU, RMSNorm, rotary positions, no biases, untied embeddings).
struct Family {
  std::string_view model_type;
  std::string_view title;
  ShapeKeys keys{};
  KvHeads kv = KvHeads::Key;
  int positions_absent = 0;      // the config class's default sequence when the key is absent (0: required)
  bool ffn_may_be_null = false;  // absent or null means 4 x hidden (GPT-2's n_inner, Falcon's ffn_hidden_size)
  bool gated = true;             // SwiGLU (gate, up and down projections)
  bool rms_norm = true;
  bool rotary = true;           // false: learned positions (GPT-2); Falcon: rotary unless alibi
  std::string_view bias_key{};  // "" : `bias` fixed
  bool bias = false;
  bool tied = false;  // tie_word_embeddings when absent
  // A sliding window (read_window): its key ("": none), the window the config class takes when the key is absent (a
  // null key: none), whether use_sliding_window (absent: false) turns it on, and whether max_window_layers (absent:
  // 28) or layer_types says which blocks keep full attention (the bottom ones).
  std::string_view sliding_key{};
  int sliding_absent = 0;
  bool sliding_switch = false;
  bool full_bottom = false;
  // Mixture of experts: experts and top-k keys, and the experts' own width when it has a key of its own.
  std::string_view experts_key{}, top_k_key{}, expert_ffn_key{};
  std::string_view differs{};  // where TransformerSpec's count differs from the architecture's (a few parameters)
};

constexpr Family kFamilies[] = {
    {.model_type = "llama", .title = "Llama", .bias_key = "attention_bias"},
    {.model_type = "mistral", .title = "Mistral", .sliding_key = "sliding_window", .sliding_absent = 4096},
    {.model_type = "mixtral",
     .title = "Mixtral",
     .sliding_key = "sliding_window",
     .experts_key = "num_local_experts",
     .top_k_key = "num_experts_per_tok"},
    {.model_type = "qwen2",
     .title = "Qwen2",
     .sliding_key = "sliding_window",
     .sliding_absent = 4096,
     .sliding_switch = true,
     .full_bottom = true,
     .differs = "its q, k and v projections' biases left out (h + 2 kv_dim parameters a block)"},
    {.model_type = "qwen3",
     .title = "Qwen3",
     .bias_key = "attention_bias",
     .sliding_key = "sliding_window",
     .sliding_absent = 4096,
     .sliding_switch = true,
     .full_bottom = true,
     .differs = "its q and k RMSNorms left out (2 head_dim parameters a block)"},
    {.model_type = "qwen3_moe",
     .title = "Qwen3-MoE",
     .bias_key = "attention_bias",
     .sliding_key = "sliding_window",
     .sliding_absent = 4096,
     .sliding_switch = true,
     .experts_key = "num_experts",
     .top_k_key = "num_experts_per_tok",
     .expert_ffn_key = "moe_intermediate_size",
     .differs = "its q and k RMSNorms left out (2 head_dim parameters a block)"},
    {.model_type = "gpt2",
     .title = "GPT-2",
     .keys = {"n_embd", "n_layer", "n_head", "n_inner", "vocab_size", "n_positions"},
     .kv = KvHeads::None,
     .ffn_may_be_null = true,
     .gated = false,
     .rms_norm = false,
     .rotary = false,
     .bias = true,
     .tied = true},
    {.model_type = "gpt_neox",
     .title = "GPT-NeoX",
     .kv = KvHeads::None,
     .gated = false,
     .rms_norm = false,
     .bias_key = "attention_bias",
     .bias = true},
    {.model_type = "falcon",
     .title = "Falcon",
     .keys = {.ffn = "ffn_hidden_size"},
     .kv = KvHeads::Falcon,
     .positions_absent = 2048,
     .ffn_may_be_null = true,
     .gated = false,
     .rms_norm = false,
     .bias_key = "bias",
     .tied = true,
     .differs = "counted with two LayerNorms a block where parallel attention (Falcon-7B) has one (2 h parameters a "
                "block more)"},
};

// Architectures of other families whose configs say what dtsim cannot map: the key, and why.
struct Refusal {
  std::string_view key;
  std::string_view why;
};
constexpr Refusal kRefusals[] = {
    {"kv_lora_rank",
     "multi-head latent attention (DeepSeek-V2 and V3) is not modelled; describe the model with model.transformer.*"},
    {"n_shared_experts",
     "shared experts beside the routed ones are not modelled; describe the routed experts with "
     "model.transformer.*"},
    {"shared_expert_intermediate_size",
     "shared experts beside the routed ones are not modelled; describe the routed "
     "experts with model.transformer.*"},
};

const Family* find_family(std::string_view model_type) {
  for (const Family& f : kFamilies) {
    if (f.model_type == model_type) return &f;
  }
  return nullptr;
}

int kv_heads(const Reader& r, const Family& f, int heads) {
  switch (f.kv) {
    case KvHeads::Key: return r.count_or("num_key_value_heads", heads);
    case KvHeads::None: return heads;
    case KvHeads::Falcon:
      if (r.flag_or("new_decoder_architecture", false)) return r.count("num_kv_heads", "key/value heads");
      return r.flag_or("multi_query", true) ? 1 : heads;
  }
  return heads;
}

void read_experts(const Reader& r, const Family& f, TransformerSpec& s) {
  if (f.experts_key.empty()) return;
  s.experts = r.count(f.experts_key, "experts per MoE layer");
  s.top_k = r.count(f.top_k_key, "experts each token is routed to");
  if (s.top_k > s.experts) {
    r.fail(f.top_k_key, fmt::format("{} is more than the {} experts ({})", s.top_k, s.experts, f.experts_key));
  }
  s.capacity_factor = 0;  // dropless, as Hugging Face's and Megatron-LM's routers run by default
  if (!f.expert_ffn_key.empty()) s.ffn = r.count(f.expert_ffn_key, "each expert's width");
  if (r.count_or("decoder_sparse_step", 1) != 1) {
    r.fail("decoder_sparse_step", "MoE layers every other block are not modelled: dtsim's blocks are all alike (1)");
  }
  if (r.has("mlp_only_layers") && !r.at("mlp_only_layers").empty()) {
    r.fail("mlp_only_layers", "dense blocks among MoE blocks are not modelled: dtsim's blocks are all alike ([])");
  }
}

// The blocks layer_types makes windowed ("sliding_attention"; the others "full_attention").
int sliding_layers(const Reader& r, int layers) {
  const Json& types = r.at("layer_types");
  if (!types.is_array() || types.size() != static_cast<size_t>(layers)) {
    r.fail("layer_types", fmt::format("expected a list of {} entries, one a block (num_hidden_layers), got {}", layers,
                                      types.is_array() ? fmt::format("{} entries", types.size()) : types.dump()));
  }
  int sliding = 0;
  for (const Json& t : types) {
    if (t == "sliding_attention") {
      ++sliding;
    } else if (t != "full_attention") {
      r.fail("layer_types",
             fmt::format("{} is not modelled (valid: \"full_attention\", \"sliding_attention\")", t.dump()));
    }
  }
  return sliding;
}

// The shape's sliding window (TransformerSpec::window and window_layers) as the family's modeling code runs it
// (Hugging Face transformers' configuration_*.py): Mistral's sliding_window on every block (4096 when the key is
// absent); Mixtral's likewise (none when absent); Qwen's only with use_sliding_window, and in Qwen2 and Qwen3 only on
// the blocks from max_window_layers up (`"sliding_attention" if sliding_window is not None and i >=
// max_window_layers`), or on those layer_types names "sliding_attention" when the config lists them.
void read_window(const Reader& r, const Family& f, TransformerSpec& s) {
  if (f.sliding_key.empty()) return;
  if (f.sliding_switch && !r.flag_or("use_sliding_window", false)) return;
  const int window = r.has(f.sliding_key)        ? r.count_or(f.sliding_key, 0)
                     : r.contains(f.sliding_key) ? 0  // null: no window
                                                 : f.sliding_absent;
  if (window == 0) return;
  int windowed = s.layers;
  if (f.full_bottom) {
    windowed = r.has("layer_types") ? sliding_layers(r, s.layers)
                                    : std::max(0, s.layers - r.whole_or("max_window_layers", 28));
  }
  if (windowed == 0) return;
  s.window = window;
  s.window_layers = static_cast<double>(windowed) / s.layers;
}

// The model's name: _name_or_path's last part, else the file's folder, else the model_type.
std::string name_of(const Reader& r, std::string_view model_type) {
  std::string name = r.text_or("_name_or_path", "");
  if (name.empty()) name = std::filesystem::path(r.origin()).parent_path().filename().string();
  if (name.empty()) return std::string(model_type);
  if (const size_t slash = name.find_last_of('/'); slash != std::string::npos) name = name.substr(slash + 1);
  return name;
}

}  // namespace

std::vector<std::string_view> hf_model_types() {
  std::vector<std::string_view> out;
  for (const Family& f : kFamilies) out.push_back(f.model_type);
  return out;
}

HfModel parse_hf_config(std::string_view text, const std::string& origin) {
  const Json j = Json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw InputError(SourceLocation{origin}, "not a JSON object (a Hugging Face config.json is one)");
  }
  const Reader r(j, text, origin);
  for (const Refusal& x : kRefusals) {
    if (r.has(x.key) && !(r.at(x.key).is_number() && r.at(x.key).get<double>() == 0)) r.fail(x.key, std::string(x.why));
  }
  if (!r.has("model_type")) {
    r.fail("model_type",
           fmt::format("missing: one of {} says which family's keys to read", fmt::join(hf_model_types(), ", ")));
  }
  const std::string model_type = r.text_or("model_type", "");
  const Family* family = find_family(model_type);
  if (!family) {
    r.fail("model_type", fmt::format("'{}' is not a family dtsim maps (valid: {}); describe the model with "
                                     "model.transformer.*",
                                     model_type, fmt::join(hf_model_types(), ", ")));
  }
  const Family& f = *family;
  TransformerSpec s;
  const ShapeKeys& k = f.keys;
  s.hidden = r.count(k.hidden, "the hidden width");
  s.layers = r.count(k.layers, "the number of blocks");
  s.heads = r.count(k.heads, "attention heads");
  s.kv_heads = kv_heads(r, f, s.heads);
  s.ffn = f.ffn_may_be_null ? r.count_or(k.ffn, 0) : r.count(k.ffn, "the MLP's width");
  s.vocab = r.count(k.vocab, "the vocabulary");
  s.seq_len = f.positions_absent > 0 ? r.count_or(k.positions, f.positions_absent)
                                     : r.count(k.positions, "the longest sequence");
  s.gated_mlp = f.gated;
  s.rms_norm = f.rms_norm;
  s.rotary = f.model_type == "falcon" ? !r.flag_or("alibi", false) : f.rotary;
  s.bias = f.bias_key.empty() ? f.bias : r.flag_or(f.bias_key, f.bias);
  s.tied_embeddings = r.flag_or("tie_word_embeddings", f.tied);
  s.positions = 0;
  s.encoder = false;
  s.flash_attention = true;
  if (r.has("head_dim") && r.count("head_dim", "") * s.heads != s.hidden) {
    r.fail("head_dim", fmt::format("{} is not hidden / heads ({} / {}): dtsim's attention has heads of hidden / heads "
                                   "(set model.transformer.* to describe it)",
                                   r.at("head_dim").dump(), s.hidden, s.heads));
  }
  if (s.heads % s.kv_heads != 0) {
    r.fail(f.kv == KvHeads::Falcon ? "num_kv_heads" : "num_key_value_heads",
           fmt::format("{} does not divide the {} attention heads", s.kv_heads, s.heads));
  }
  read_experts(r, f, s);
  read_window(r, f, s);
  HfModel out;
  out.shape = s;
  out.name = name_of(r, model_type);
  out.sequence_key = r.has(k.positions) ? std::string(k.positions) : "";
  out.source = fmt::format("{}: a Hugging Face {} config (model_type {}){}", origin, f.title, model_type,
                           f.differs.empty() ? "" : fmt::format("; {}", f.differs));
  if (const auto problem = shape_problem(s)) {
    throw InputError(SourceLocation{origin}, fmt::format("the shape it gives is not a transformer dtsim builds: {}: {}",
                                                         problem->field, problem->message));
  }
  return out;
}

HfModel load_hf_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path}, "cannot be read (a Hugging Face config.json)");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_hf_config(ss.str(), path);
}

}  // namespace dtsim
