// Megatron-LM's arguments as scenario keys (megatron_args.hpp). Lines cited "L..." are megatron/training/arguments.py
// at core_v0.9.0 (NVIDIA/Megatron-LM @ 1afee592e85ac7994887eb5f4ef3998f76384333) unless another file is named.
#include "core/scenario/megatron_args.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim {
namespace {

struct ArgumentRow {
  std::string_view name;
  bool value;               // takes a value (--num-layers 32), or is a flag (--swiglu)
  std::string_view sets;    // the scenario key it sets, or "(...)": what it checks or why it sets none
  std::string_view source;  // where Megatron-LM defines it
};

// Every argument dtsim reads. The refused ones (kRefused below) and torchrun's counts are read too.
constexpr ArgumentRow kArguments[] = {
    {"--num-layers", true, "model.transformer.layers", "L806"},
    {"--hidden-size", true, "model.transformer.hidden", "L812"},
    {"--ffn-hidden-size", true, "model.transformer.ffn",
     "L814 (left out: 4 h, or int(8h/3 / 64) x 64 with SwiGLU, L411-419)"},
    {"--num-attention-heads", true, "model.transformer.heads", "L817"},
    {"--kv-channels", true, "(hidden / heads only)", "L819 (left out: hidden / heads, L422-424)"},
    {"--group-query-attention", false, "model.transformer.kv_heads", "L824"},
    {"--num-query-groups", true, "model.transformer.kv_heads",
     "L826 (default 1; read with --group-query-attention, L688-691)"},
    {"--seq-length", true, "model.transformer.seq_len", "L1664"},
    {"--max-position-embeddings", true, "model.transformer.positions", "L828 (learned positions only)"},
    {"--position-embedding-type", true, "model.transformer.rotary", "L831 (default learned_absolute)"},
    {"--use-rotary-position-embeddings", false, "model.transformer.rotary", "L834, L542-543"},
    {"--normalization", true, "model.transformer.rms_norm", "L852 (default LayerNorm)"},
    {"--apply-layernorm-1p", false, "(LayerNorm's cost)", "L857"},
    {"--squared-relu", false, "(a two-matrix MLP, GeLU's cost)", "L868"},
    {"--swiglu", false, "model.transformer.gated_mlp", "L870"},
    {"--untie-embeddings-and-output-weights", false, "model.transformer.tied_embeddings", "L878"},
    {"--disable-bias-linear", false, "model.transformer.bias", "L1222"},
    {"--vocab-size", true, "model.transformer.vocab", "L1655"},
    {"--tokenizer-type", true, "model.transformer.vocab", "L1683 (GPT2BPETokenizer: 50257)"},
    {"--make-vocab-size-divisible-by", true, "model.transformer.vocab",
     "L849 (default 128); padded to it x TP, tokenizer/tokenizer.py L79-90"},
    {"--num-experts", true, "model.transformer.experts", "L1864"},
    {"--moe-router-topk", true, "model.transformer.top_k", "L1870 (default 2)"},
    {"--moe-expert-capacity-factor", true, "model.transformer.capacity_factor", "L1889 (left out: dropless)"},
    {"--moe-ffn-hidden-size", true, "model.transformer.ffn", "an MoE model's expert width"},
    {"--window-size", true, "model.transformer.window",
     "a later commit: (left, right) keys beside a query, -1 unbounded (core/transformer/transformer_config.py)"},
    {"--window-attn-skip-freq", true, "model.transformer.window_layers",
     "a later commit: N, one full-attention layer after N - 1 windowed ones"},
    {"--transformer-impl", true, "model.transformer.flash_attention", "L721 (default transformer_engine)"},
    {"--use-flash-attn", false, "model.transformer.flash_attention", "L1219"},
    {"--attention-backend", true, "framework.attention_backend", "a later commit: auto, flash, fused, unfused, local"},
    {"--bf16", false, "model.dtype", "L1471 (gradients then reduced in fp32, L330-338)"},
    {"--fp16", false, "model.dtype", "L1469"},
    {"--accumulate-allreduce-grads-in-fp32", false, "model.grad_dtype", "L1492"},
    {"--grad-reduce-in-bf16", false, "model.grad_dtype", "a later commit (arguments.py, _add_mixed_precision_args)"},
    {"--fp8-format", true, "model.fp8", "L701 (e4m3 or hybrid)"},
    {"--fp8-recipe", true, "model.fp8",
     "a later commit (core/transformer/transformer_config.py: delayed by default, tensorwise)"},
    {"--fp8-param-gather", false, "framework.fp8_param_gather", "L724"},
    {"--optimizer", true, "model.optimizer", "L913 at a later commit (default adam)"},
    {"--tensor-model-parallel-size", true, "strategy.tensor", "L1505"},
    {"--pipeline-model-parallel-size", true, "strategy.pipeline.stages", "L1509"},
    {"--num-layers-per-virtual-pipeline-stage", true, "strategy.pipeline.virtual_stages", "L1529"},
    {"--virtual-pipeline-model-parallel-size", true, "strategy.pipeline.virtual_stages", "a later commit"},
    {"--context-parallel-size", true, "strategy.context", "L1586"},
    {"--expert-model-parallel-size", true, "strategy.expert", "L1862"},
    {"--sequence-parallel", false, "strategy.sequence_parallel", "L1243; off at TP 1, L500-501"},
    {"--micro-batch-size", true, "strategy.micro_batch", "L1048"},
    {"--global-batch-size", true, "strategy.global_batch", "L1055 (left out: micro-batch x DP)"},
    {"--use-distributed-optimizer", false, "strategy.zero", "L1584"},
    {"--overlap-grad-reduce", false, "strategy.allreduce.overlap", "L1539"},
    {"--overlap-param-gather", false, "(no key: ZeRO's gathers run after the step)", "L1556"},
    {"--tp-comm-overlap", false, "framework.tp_comm_overlap", "L1133"},
    {"--recompute-activations", false, "strategy.recompute", "L1081 (selective, L235-236)"},
    {"--recompute-granularity", true, "strategy.recompute", "L1084 (full or selective)"},
    {"--recompute-method", true, "strategy.recompute_every", "L1099 (uniform or block)"},
    {"--recompute-num-layers", true, "strategy.recompute_every", "L1108"},
    {"--nnodes", true, "cluster.nodes", "torchrun"},
    {"--nproc-per-node", true, "cluster.devices_per_node", "torchrun"},
    {"--nproc_per_node", true, "cluster.devices_per_node", "torchrun"},
};

// Arguments that change the cost in ways dtsim cannot express: refused, with why.
struct Refused {
  std::string_view name;
  std::string_view why;
};
constexpr Refused kRefused[] = {
    {"--multi-latent-attention",
     "multi-latent attention is not modelled (dtsim's attention has hidden / heads wide heads)"},
    {"--moe-shared-expert-intermediate-size", "shared experts are not modelled"},
    {"--moe-layer-freq", "MoE layers among dense ones are not modelled: dtsim's blocks are all alike"},
    {"--decoder-first-pipeline-num-layers", "uneven pipeline stages are not modelled: the layers split evenly"},
    {"--decoder-last-pipeline-num-layers", "uneven pipeline stages are not modelled: the layers split evenly"},
    {"--account-for-embedding-in-pipeline-split", "uneven pipeline stages are not modelled: the layers split evenly"},
    {"--account-for-loss-in-pipeline-split", "uneven pipeline stages are not modelled: the layers split evenly"},
    {"--fp4-format", "fp4 GEMMs are not modelled"},
};

struct Token {
  std::string text;
  int line = 0;
};

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> out;
  std::string cur;
  int line = 1, start = 0;
  char quote = 0;
  bool in_token = false;
  auto flush = [&] {
    if (in_token) out.push_back({cur, start});
    cur.clear();
    in_token = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (cur.rfind("--", 0) == 0 && (c == ' ' || c == '\t')) {
        flush();  // a quoted "--arg value" (a bash array's element) is two words
      } else {
        if (c == '\n') ++line;
        if (!in_token) {
          in_token = true;
          start = line;
        }
        cur += c;
      }
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {  // a line continued
      ++i;
      ++line;
      flush();
      continue;
    }
    if (c == '#' && !in_token) {  // a comment to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '\n' || c == ' ' || c == '\t' || c == '\r') {
      flush();
      if (c == '\n') ++line;
      continue;
    }
    if (!in_token) {
      in_token = true;
      start = line;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    cur += c;
  }
  flush();
  return out;
}

const ArgumentRow* row_of(std::string_view name) {
  for (const ArgumentRow& r : kArguments) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

struct Given {
  std::string value;
  int line = 0;
};

class Reader {
 public:
  Reader(std::string_view text, std::string origin) : origin_(std::move(origin)) {
    const std::vector<Token> tokens = tokenize(text);
    for (size_t i = 0; i < tokens.size(); ++i) {
      const std::string& t = tokens[i].text;
      if (t.rfind("--", 0) != 0) continue;  // the program, its script, environment settings
      std::string name = t, value;
      bool has_value = false;
      if (const auto eq = t.find('='); eq != std::string::npos) {
        name = t.substr(0, eq);
        value = t.substr(eq + 1);
        has_value = true;
      }
      const ArgumentRow* row = row_of(name);
      const bool refused =
          std::any_of(std::begin(kRefused), std::end(kRefused), [&](const Refused& r) { return r.name == name; });
      const bool takes = row ? row->value : i + 1 < tokens.size() && tokens[i + 1].text.rfind("--", 0) != 0;
      if (!has_value && takes && i + 1 < tokens.size() && tokens[i + 1].text.rfind("--", 0) != 0) {
        value = tokens[++i].text;
        has_value = true;
      }
      if (row && row->value && !has_value) fail(name, tokens[i].line, "needs a value");
      if (row && !row->value && has_value) fail(name, tokens[i].line, "takes no value");
      if (refused || row) {
        given_[name] = Given{value, tokens[i].line};
      } else if (std::find(not_read_.begin(), not_read_.end(), name) == not_read_.end()) {
        not_read_.push_back(name);
      }
    }
    for (const Refused& r : kRefused) {
      const auto found = given_.find(std::string(r.name));
      if (found == given_.end()) continue;
      if (r.name == "--moe-layer-freq" && found->second.value == "1") continue;
      fail(r.name, found->second.line, std::string(r.why));
    }
  }

  [[noreturn]] void fail(std::string_view name, int line, const std::string& why) const {
    throw InputError(SourceLocation{origin_, line, 0}, fmt::format("{}: {}", name, why));
  }
  [[noreturn]] void fail(std::string_view name, const std::string& why) const {
    const auto found = given_.find(std::string(name));
    fail(name, found == given_.end() ? 0 : found->second.line, why);
  }

  bool has(std::string_view name) const { return given_.count(std::string(name)) > 0; }
  int line(std::string_view name) const { return given_.at(std::string(name)).line; }
  std::string word(std::string_view name, std::string_view fallback) const {
    return has(name) ? given_.at(std::string(name)).value : std::string(fallback);
  }
  double number(std::string_view name) const {
    const std::string& v = given_.at(std::string(name)).value;
    try {
      size_t used = 0;
      const double x = std::stod(v, &used);
      if (used == v.size() && std::isfinite(x)) return x;
    } catch (const std::exception&) {
    }
    fail(name, fmt::format("'{}' is not a number", v));
  }
  int whole(std::string_view name) const {
    const double x = number(name);
    if (x < 1 || x > 1e9 || x != std::floor(x)) fail(name, fmt::format("expected a whole number from 1, got {}", x));
    return static_cast<int>(x);
  }
  int whole_or(std::string_view name, int fallback) const { return has(name) ? whole(name) : fallback; }
  int required(std::string_view name, std::string_view what) const {
    if (!has(name))
      throw InputError(SourceLocation{origin_}, fmt::format("{}: missing ({}; Megatron-LM requires it)", name, what));
    return whole(name);
  }
  const std::vector<std::string>& not_read() const { return not_read_; }

 private:
  std::string origin_;
  std::map<std::string, Given> given_;
  std::vector<std::string> not_read_;
};

class Importer {
 public:
  Importer(const Reader& r, MegatronImport& out) : r_(r), out_(out) {}

  void set(std::string key, std::string value, std::string_view from) {
    const ArgumentRow* row = from.empty() ? nullptr : row_of(from);
    std::string given = "dtsim's hybrid transformer";
    if (row && r_.has(from)) {
      const std::string v = r_.word(from, "");
      given = fmt::format("{}{}{} (line {})", from, v.empty() ? "" : " ", v, r_.line(from));
    } else if (row) {
      given = fmt::format("{} left out", from);
    }
    out_.mapped.push_back(
        fmt::format("{}: {} {}{}", given, key, value, row ? fmt::format("  [Megatron-LM: {}]", row->source) : ""));
    out_.keys.emplace_back(std::move(key), std::move(value));
  }

  void model();
  void window();
  void precision();
  void layout();

 private:
  const Reader& r_;
  MegatronImport& out_;
  int layers_ = 0, tensor_ = 1, pipeline_ = 1, virtual_ = 1;
};

void Importer::model() {
  const int layers = r_.required("--num-layers", "the transformer's layers");
  const int hidden = r_.required("--hidden-size", "its width");
  const int heads = r_.required("--num-attention-heads", "its attention heads");
  layers_ = layers;
  set("model.name", "transformer", "");
  set("model.transformer.layers", std::to_string(layers), "--num-layers");
  set("model.transformer.hidden", std::to_string(hidden), "--hidden-size");
  set("model.transformer.heads", std::to_string(heads), "--num-attention-heads");
  if (r_.has("--kv-channels") && static_cast<long long>(r_.whole("--kv-channels")) * heads != hidden) {
    r_.fail("--kv-channels", fmt::format("{} is not hidden / heads ({} / {}): dtsim's heads are hidden / heads wide",
                                         r_.whole("--kv-channels"), hidden, heads));
  }
  if (r_.has("--group-query-attention")) {
    set("model.transformer.kv_heads", std::to_string(r_.whole_or("--num-query-groups", 1)), "--num-query-groups");
  }
  set("model.transformer.seq_len", std::to_string(r_.required("--seq-length", "tokens a sample")), "--seq-length");
  const bool gated = r_.has("--swiglu");
  const bool moe = r_.has("--num-experts");
  if (moe && r_.has("--moe-ffn-hidden-size")) {
    set("model.transformer.ffn", std::to_string(r_.whole("--moe-ffn-hidden-size")), "--moe-ffn-hidden-size");
  } else {
    const long long ffn = r_.has("--ffn-hidden-size") ? r_.whole("--ffn-hidden-size")
                          : gated                     ? static_cast<long long>(4.0 * hidden * 2 / 3 / 64) * 64
                                                      : 4LL * hidden;
    set("model.transformer.ffn", std::to_string(ffn), "--ffn-hidden-size");
  }
  set("model.transformer.gated_mlp", gated ? "true" : "false", "--swiglu");
  const std::string norm = r_.word("--normalization", "LayerNorm");
  if (norm != "LayerNorm" && norm != "RMSNorm") {
    r_.fail("--normalization", fmt::format("'{}' is not LayerNorm or RMSNorm", norm));
  }
  set("model.transformer.rms_norm", norm == "RMSNorm" ? "true" : "false", "--normalization");
  std::string positions = r_.word("--position-embedding-type", "learned_absolute");
  if (r_.has("--use-rotary-position-embeddings")) positions = "rope";
  if (positions == "learned_absolute") {
    set("model.transformer.rotary", "false", "--position-embedding-type");
    if (r_.has("--max-position-embeddings")) {
      set("model.transformer.positions", std::to_string(r_.whole("--max-position-embeddings")),
          "--max-position-embeddings");
    }
  } else if (positions == "rope" || positions == "none") {
    // none has no parameters either: dtsim's rotary pass is its nearest (a small elementwise kernel).
    set("model.transformer.rotary", "true", "--position-embedding-type");
  } else {
    r_.fail("--position-embedding-type", fmt::format("'{}' is not learned_absolute, rope or none", positions));
  }
  set("model.transformer.bias", r_.has("--disable-bias-linear") ? "false" : "true", "--disable-bias-linear");
  set("model.transformer.tied_embeddings", r_.has("--untie-embeddings-and-output-weights") ? "false" : "true",
      "--untie-embeddings-and-output-weights");
  tensor_ = r_.whole_or("--tensor-model-parallel-size", 1);
  int vocab = 0;
  if (r_.has("--vocab-size")) {
    vocab = r_.whole("--vocab-size");
  } else if (r_.word("--tokenizer-type", "") == "GPT2BPETokenizer") {
    vocab = 50257;  // GPT-2's byte-pair vocabulary
  } else {
    r_.fail("--vocab-size",
            "missing: the vocabulary comes from the tokenizer; give --vocab-size N (the tokenizer's size, before "
            "Megatron-LM pads it)");
  }
  const long long multiple = static_cast<long long>(r_.whole_or("--make-vocab-size-divisible-by", 128)) * tensor_;
  const long long padded = (vocab + multiple - 1) / multiple * multiple;
  set("model.transformer.vocab", std::to_string(padded), r_.has("--vocab-size") ? "--vocab-size" : "--tokenizer-type");
  if (moe) {
    set("model.transformer.experts", std::to_string(r_.whole("--num-experts")), "--num-experts");
    set("model.transformer.top_k", std::to_string(r_.whole_or("--moe-router-topk", 2)), "--moe-router-topk");
    set("model.transformer.capacity_factor",
        r_.has("--moe-expert-capacity-factor") ? fmt::format("{:g}", r_.number("--moe-expert-capacity-factor")) : "0",
        "--moe-expert-capacity-factor");
  }
  if (r_.has("--window-size")) window();
  const std::string impl = r_.word("--transformer-impl", "transformer_engine");
  const std::string backend = r_.word("--attention-backend", "auto");
  const bool flash = backend == "unfused" ? false : impl == "transformer_engine" || r_.has("--use-flash-attn");
  set("model.transformer.flash_attention", flash ? "true" : "false",
      r_.has("--attention-backend") ? "--attention-backend" : "--transformer-impl");
  if (backend == "flash") set("framework.attention_backend", "flash2", "--attention-backend");
  if (backend == "fused") set("framework.attention_backend", "cudnn", "--attention-backend");
}

// --window-size (left, right): a causal query sees itself and `left` keys before it (-1: all of them); `right` keys
// after it are masked anyway. --window-attn-skip-freq N: one block in N keeps full attention.
void Importer::window() {
  std::string text = r_.word("--window-size", "");
  std::erase_if(text, [](char c) { return c == '(' || c == ')' || c == '[' || c == ']' || c == ' '; });
  const auto comma = text.find(',');
  int left = 0;
  try {
    size_t used = 0;
    left = std::stoi(text.substr(0, comma), &used);
    if (comma == std::string::npos || used != comma || left < -1) throw std::invalid_argument("window");
  } catch (const std::exception&) {
    r_.fail("--window-size", fmt::format("'{}' is not (left, right) keys, e.g. 4095,0", r_.word("--window-size", "")));
  }
  if (left < 0) return;  // unbounded: full attention
  set("model.transformer.window", std::to_string(left + 1), "--window-size");
  if (r_.has("--window-attn-skip-freq")) {
    const int every = r_.whole("--window-attn-skip-freq");  // a list pattern is not a whole number: refused there
    set("model.transformer.window_layers", fmt::format("{:.17g}", (every - 1.0) / every), "--window-attn-skip-freq");
  }
}

void Importer::precision() {
  if (r_.has("--bf16") && r_.has("--fp16")) r_.fail("--fp16", "both --bf16 and --fp16 are given");
  const bool bf16 = r_.has("--bf16"), fp16 = r_.has("--fp16");
  set("model.dtype", bf16 ? "bf16" : fp16 ? "fp16" : "fp32", bf16 ? "--bf16" : fp16 ? "--fp16" : "");
  // bf16: gradients accumulated and reduced in fp32 (L330-338) unless --grad-reduce-in-bf16 (a later commit).
  const bool fp32_grads = bf16 ? !r_.has("--grad-reduce-in-bf16") : r_.has("--accumulate-allreduce-grads-in-fp32");
  set("model.grad_dtype",
      fp32_grads || (!bf16 && !fp16) ? "fp32"
      : bf16                         ? "bf16"
                                     : "fp16",
      bf16 ? "--grad-reduce-in-bf16" : "--accumulate-allreduce-grads-in-fp32");
  if (r_.has("--fp8-format")) {
    const std::string format = r_.word("--fp8-format", "");
    if (format != "e4m3" && format != "hybrid")
      r_.fail("--fp8-format", fmt::format("'{}' is not e4m3 or hybrid", format));
    const std::string recipe = r_.word("--fp8-recipe", "delayed");
    if (recipe != "delayed" && recipe != "tensorwise") {
      r_.fail("--fp8-recipe", fmt::format("'{}': block-scaled fp8 is not modelled (delayed or tensorwise)", recipe));
    }
    set("model.fp8", recipe == "delayed" ? "delayed" : "current", "--fp8-recipe");
    if (r_.has("--fp8-param-gather")) set("framework.fp8_param_gather", "true", "--fp8-param-gather");
  }
  const std::string optimizer = r_.word("--optimizer", "adam");
  if (optimizer != "adam" && optimizer != "sgd")
    r_.fail("--optimizer", fmt::format("'{}' is not adam or sgd", optimizer));
  set("model.optimizer", optimizer, "--optimizer");
}

void Importer::layout() {
  set("strategy.kind", "hybrid", "");
  pipeline_ = r_.whole_or("--pipeline-model-parallel-size", 1);
  const int context = r_.whole_or("--context-parallel-size", 1);
  set("strategy.tensor", std::to_string(tensor_), "--tensor-model-parallel-size");
  set("strategy.pipeline.stages", std::to_string(pipeline_), "--pipeline-model-parallel-size");
  if (r_.has("--num-layers-per-virtual-pipeline-stage")) {
    const int per = r_.whole("--num-layers-per-virtual-pipeline-stage");
    if (layers_ % (static_cast<long long>(per) * pipeline_)) {
      r_.fail("--num-layers-per-virtual-pipeline-stage",
              fmt::format("{} layers do not split into {} stages of chunks of {}", layers_, pipeline_, per));
    }
    virtual_ = static_cast<int>(layers_ / (static_cast<long long>(per) * pipeline_));
  }
  virtual_ = r_.whole_or("--virtual-pipeline-model-parallel-size", virtual_);
  if (virtual_ > 1) {
    set("strategy.pipeline.schedule", "interleaved", "--num-layers-per-virtual-pipeline-stage");
    set("strategy.pipeline.virtual_stages", std::to_string(virtual_), "--num-layers-per-virtual-pipeline-stage");
  }
  set("strategy.context", std::to_string(context), "--context-parallel-size");
  if (r_.has("--expert-model-parallel-size")) {
    set("strategy.expert", std::to_string(r_.whole("--expert-model-parallel-size")), "--expert-model-parallel-size");
  }
  // Megatron-LM turns sequence parallelism off at TP 1 (L500-501).
  set("strategy.sequence_parallel", r_.has("--sequence-parallel") && tensor_ > 1 ? "true" : "false",
      "--sequence-parallel");
  set("strategy.micro_batch", std::to_string(r_.required("--micro-batch-size", "sequences a micro-batch")),
      "--micro-batch-size");
  if (r_.has("--global-batch-size")) {
    set("strategy.global_batch", std::to_string(r_.whole("--global-batch-size")), "--global-batch-size");
  }
  set("strategy.zero", r_.has("--use-distributed-optimizer") ? "1" : "0", "--use-distributed-optimizer");
  set("strategy.allreduce.overlap", r_.has("--overlap-grad-reduce") ? "true" : "false", "--overlap-grad-reduce");
  std::string recompute = r_.has("--recompute-activations") ? "selective" : "none";
  recompute = r_.word("--recompute-granularity", recompute);
  if (recompute != "none" && recompute != "full" && recompute != "selective") {
    r_.fail("--recompute-granularity", fmt::format("'{}' is not full or selective", recompute));
  }
  set("strategy.recompute", recompute,
      r_.has("--recompute-granularity") ? "--recompute-granularity" : "--recompute-activations");
  if (recompute == "full") {
    // Megatron-LM needs a method with full recompute: uniform recomputes every layer (in chunks of
    // --recompute-num-layers), block the first --recompute-num-layers of each stage's chunk.
    const std::string method = r_.word("--recompute-method", "");
    if (method != "uniform" && method != "block") {
      r_.fail("--recompute-method",
              "full recompute needs --recompute-method uniform or block (Megatron-LM asserts it)");
    }
    const long long per_chunk = layers_ / (static_cast<long long>(pipeline_) * virtual_);
    const int n = r_.whole_or("--recompute-num-layers", 1);
    if (method == "block" && n < per_chunk) {
      if (per_chunk % n) {
        r_.fail("--recompute-num-layers",
                fmt::format("{} of each chunk's {} layers: dtsim recomputes every k-th block (a whole divisor)", n,
                            per_chunk));
      }
      set("strategy.recompute_every", std::to_string(per_chunk / n), "--recompute-num-layers");
    }
  }
  if (r_.has("--tp-comm-overlap")) set("framework.tp_comm_overlap", "true", "--tp-comm-overlap");
}

}  // namespace

MegatronImport parse_megatron_args(std::string_view text, const std::string& origin) {
  const Reader r(text, origin);
  MegatronImport out;
  Importer imp(r, out);
  imp.model();
  imp.precision();
  imp.layout();
  if (r.has("--nnodes")) {
    const std::string n = r.word("--nnodes", "");
    if (n.find(':') != std::string::npos) r.fail("--nnodes", fmt::format("'{}': an elastic range; give the count", n));
    out.nodes = r.whole("--nnodes");
  }
  for (std::string_view g : {"--nproc-per-node", "--nproc_per_node"}) {
    if (r.has(g)) out.gpus_per_node = r.whole(g);
  }
  out.not_read = r.not_read();
  return out;
}

MegatronImport load_megatron_args(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path}, "cannot be read (Megatron-LM's arguments: a launch command)");
  std::stringstream text;
  text << in.rdbuf();
  return parse_megatron_args(text.str(), path);
}

std::vector<std::pair<std::string_view, std::string_view>> megatron_arguments() {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (const ArgumentRow& r : kArguments) out.emplace_back(r.name, r.sets);
  for (const Refused& r : kRefused) out.emplace_back(r.name, "(refused)");
  return out;
}

}  // namespace dtsim
