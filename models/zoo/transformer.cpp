// make_transformer: a GPT- or BERT-style transformer's layer table from its shape (rules in transformer.hpp).
#include "models/zoo/transformer.hpp"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/base/overloaded.hpp"
#include "models/zoo/transformer_fields.hpp"

namespace dtsim {
namespace {

// A field outside its range (the table's), e.g. {"layers", "must be at least 1 (got 0)"}.
std::optional<ShapeProblem> out_of_range(const TransformerSpec& spec) {
  for (const auto& f : transformer_fields()) {
    const double v = std::visit(
        Overloaded{[&](int TransformerSpec::*m) { return double(spec.*m); },
                   [](bool TransformerSpec::*) { return 0.0; }, [&](double TransformerSpec::*m) { return spec.*m; }},
        f.member);
    if (f.above_min && !(v > f.min))
      return ShapeProblem{
          f.name, fmt::format("must be more than {} and at most {} (got {})", f.min, f.max, field_text(f, spec))};
    if (!(v >= f.min))
      return ShapeProblem{f.name, fmt::format("must be at least {} (got {})", f.min, field_text(f, spec))};
    if (v > f.max) return ShapeProblem{f.name, fmt::format("must be at most {} (got {})", f.max, field_text(f, spec))};
  }
  return std::nullopt;
}

// One row of the table: parameters, forward FLOPs per sample, activations per sample.
struct Row {
  double params = 0, fwd = 0, activations = 0;
};
// The rows of a shape (every block's attention and MLP rows are alike), in double: integers up to 2^53 are exact,
// and the fields' maximums keep every product finite.
struct Rows {
  double ffn = 0, kv_heads = 0, positions = 0;
  Row embed, attn, mlp, tail, head;
  double params(int layers) const {
    return embed.params + layers * (attn.params + mlp.params) + tail.params + head.params;
  }
  double fwd(int layers) const { return embed.fwd + layers * (attn.fwd + mlp.fwd) + tail.fwd + head.fwd; }
};

Rows rows_of(const TransformerSpec& spec) {
  Rows r;
  const double d = spec.hidden;
  const double s = spec.seq_len;
  const double vocab = spec.vocab;
  r.ffn = spec.ffn > 0 ? spec.ffn : 4 * d;
  r.kv_heads = spec.kv_heads > 0 ? spec.kv_heads : spec.heads;
  r.positions = spec.rotary ? 0 : spec.positions > 0 ? spec.positions : s;
  const double kv = r.kv_heads * double(spec.hidden / spec.heads);  // the width of K and of V
  const double norm = spec.rms_norm ? d : 2 * d;
  const double bias = spec.bias ? 1 : 0;
  const double ffn = r.ffn;

  const double type_embeddings_and_norm = spec.encoder ? 2 * d + norm : 0;
  r.embed = {(vocab + r.positions) * d + type_embeddings_and_norm, 0, s * d};
  // With a window: the window_layers-weighted mean of a windowed block's core and a full one's (transformer.hpp).
  const double f = spec.window_layers;
  const double attention_core = has_window(spec)
                                    ? 4 * s * d * (f * causal_keys_per_query(s, spec.window) + (1 - f) * s / 2)
                                    : (spec.encoder ? 4 : 2) * s * s * d;
  // The norm, Q and output projections (d x d), K and V (d x kv), and their biases.
  const double attn = norm + 2 * d * d + 2 * d * kv + bias * (2 * d + 2 * kv);
  r.attn = {attn, 2 * attn * s + attention_core, s * d};
  // One MLP (one expert's): two or three matrices, the biases of their outputs.
  const double mlp = spec.gated_mlp ? 3 * d * ffn + bias * (2 * ffn + d) : 2 * d * ffn + bias * (ffn + d);
  const double router = d * spec.experts;
  r.mlp = spec.experts > 0 ? Row{norm + router + spec.experts * mlp, 2 * (norm + router + spec.top_k * mlp) * s, s * d}
                           : Row{norm + mlp, 2 * (norm + mlp) * s, s * d};
  r.tail = spec.encoder ? Row{d * d + bias * d, 2 * (d * d + bias * d), d} : Row{norm, 2 * norm * s, s * d};
  // Without the language-model head: a task head of negligible size.
  r.head = spec.lm_head ? Row{spec.tied_embeddings ? 0 : d * vocab, 2 * d * vocab * s, s * vocab} : Row{};
  return r;
}

// The largest model a shape may make: as many parameters as model.synthetic.params allows (1e15, 500x the largest
// published), and forward FLOPs per sample within the scenario's bound on a FLOP count (1 EFLOP).
constexpr double kMaxParams = 1e15;
constexpr double kMaxFwdFlops = 1e18;

// "decoder 32 layers, hidden 4096, ..." with the larger decoders' features when they differ from GPT-2's.
std::string describe(const TransformerSpec& spec, double ffn, double kv_heads, double positions) {
  std::string text =
      fmt::format("make_transformer: {} {} layers, hidden {}, {} heads, ffn {}, vocab {}, {}, {} embeddings",
                  spec.encoder ? "encoder" : "decoder", spec.layers, spec.hidden, spec.heads, ffn, spec.vocab,
                  spec.rotary ? std::string("rotary positions") : fmt::format("{} positions", positions),
                  spec.tied_embeddings ? "tied" : "untied");
  if (kv_heads != spec.heads) text += fmt::format(", {} kv heads", kv_heads);
  if (spec.gated_mlp) text += ", SwiGLU";
  if (spec.rms_norm) text += ", RMSNorm";
  if (!spec.bias) text += ", no biases";
  if (spec.experts > 0) text += fmt::format(", {} experts top-{}", spec.experts, spec.top_k);
  if (spec.window > 0) {
    text += fmt::format(", a sliding window of {} tokens", spec.window);
    if (spec.window_layers < 1) text += fmt::format(" on {:g} of the blocks", spec.window_layers);
  }
  return text;
}

}  // namespace

bool has_window(const TransformerSpec& spec) { return spec.window > 0 && spec.window < spec.seq_len; }

std::optional<ShapeProblem> shape_problem(const TransformerSpec& spec) {
  if (auto range = out_of_range(spec)) return range;
  if (!std::isfinite(spec.capacity_factor)) {
    return ShapeProblem{"capacity_factor", fmt::format("must be a finite number (got {})", spec.capacity_factor)};
  }
  if (spec.hidden % spec.heads != 0) {
    return ShapeProblem{"heads", fmt::format("{} does not divide hidden size {}", spec.heads, spec.hidden)};
  }
  if (spec.kv_heads > 0 && spec.heads % spec.kv_heads != 0) {
    return ShapeProblem{"kv_heads", fmt::format("{} does not divide the {} heads (valid: a divisor of {}, or 0 for "
                                                "one per head)",
                                                spec.kv_heads, spec.heads, spec.heads)};
  }
  if (spec.experts > 0 && spec.top_k > spec.experts) {
    return ShapeProblem{
        "top_k", fmt::format("{} is more than the {} experts (valid: 1..{})", spec.top_k, spec.experts, spec.experts)};
  }
  if (spec.encoder && spec.window > 0) {
    return ShapeProblem{"window", fmt::format("a sliding window of {} on an encoder is not modelled: dtsim's window is "
                                              "a causal decoder's, each query's last keys (valid: 0 with encoder: "
                                              "true)",
                                              spec.window)};
  }
  if (spec.rotary && spec.positions > 0) {
    return ShapeProblem{"positions", fmt::format("{} learned positions with rotary embeddings, which have none "
                                                 "(valid: 0)",
                                                 spec.positions)};
  }
  const Rows r = rows_of(spec);
  if (const double p = r.params(spec.layers); p > kMaxParams) {
    return ShapeProblem{"layers", fmt::format("{} layers of this shape hold {:.3g} parameters (at most {:g}: fewer "
                                              "layers, a smaller hidden, ffn, vocab or fewer experts)",
                                              spec.layers, p, kMaxParams)};
  }
  if (const double f = r.fwd(spec.layers); f > kMaxFwdFlops) {
    return ShapeProblem{"seq_len", fmt::format("a sequence of {} tokens takes {:.3g} forward FLOPs (at most {:g}: a "
                                               "shorter sequence or a smaller model)",
                                               spec.seq_len, f, kMaxFwdFlops)};
  }
  return std::nullopt;
}

Workload make_transformer(const TransformerSpec& spec, std::string name) {
  if (const auto problem = shape_problem(spec)) {
    throw InputError(fmt::format("transformer {}: {}", problem->field, problem->message));
  }
  const Rows r = rows_of(spec);
  Workload w;
  w.name = std::move(name);
  w.input = fmt::format("{} tokens", spec.seq_len);
  w.source = describe(spec, r.ffn, r.kv_heads, r.positions);
  auto add = [&w](std::string row, const Row& x) {
    w.layers.push_back(Layer{std::move(row), x.params, x.fwd, 2 * x.fwd, x.activations});
  };
  add("embed", r.embed);
  for (int i = 0; i < spec.layers; ++i) {
    add(fmt::format("attn_{}", i), r.attn);
    add(fmt::format("{}_{}", spec.experts > 0 ? "moe" : "mlp", i), r.mlp);
  }
  add(spec.encoder ? "pooler" : "ln_f", r.tail);
  add("lm_head", r.head);
  return w;
}

}  // namespace dtsim
