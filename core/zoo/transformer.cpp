// make_transformer: a GPT- or BERT-style transformer's layer table from its shape (rules in transformer.hpp).
#include "core/zoo/transformer.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/base/overloaded.hpp"
#include "core/zoo/transformer_fields.hpp"

namespace dtsim {
namespace {

// A field below its minimum (the table's), e.g. {"layers", "must be at least 1 (got 0)"}.
std::optional<ShapeProblem> below_minimum(const TransformerSpec& spec) {
  for (const auto& f : transformer_fields()) {
    const bool low = std::visit(Overloaded{[&](int TransformerSpec::*m) { return spec.*m < f.min; },
                                           [](bool TransformerSpec::*) { return false; },
                                           [&](double TransformerSpec::*m) { return !(spec.*m >= f.min); }},
                                f.member);
    if (low) return ShapeProblem{f.name, fmt::format("must be at least {} (got {})", f.min, field_text(f, spec))};
  }
  return std::nullopt;
}

// "decoder 32 layers, hidden 4096, ..." with the larger decoders' features when they differ from GPT-2's.
std::string describe(const TransformerSpec& spec, std::int64_t ffn, std::int64_t kv_heads, std::int64_t positions) {
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
  return text;
}

}  // namespace

std::optional<ShapeProblem> shape_problem(const TransformerSpec& spec) {
  if (auto low = below_minimum(spec)) return low;
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
  if (spec.rotary && spec.positions > 0) {
    return ShapeProblem{"positions", fmt::format("{} learned positions with rotary embeddings, which have none "
                                                 "(valid: 0)",
                                                 spec.positions)};
  }
  return std::nullopt;
}

Workload make_transformer(const TransformerSpec& spec, std::string name) {
  if (const auto problem = shape_problem(spec)) {
    throw InputError(fmt::format("transformer {}: {}", problem->field, problem->message));
  }

  // Integers up to 2^53 are exact in double; every count here stays far below that even for a 1T model.
  const std::int64_t d = spec.hidden;
  const std::int64_t s = spec.seq_len;
  const std::int64_t vocab = spec.vocab;
  const std::int64_t ffn = spec.ffn > 0 ? spec.ffn : 4 * d;
  const std::int64_t kv_heads = spec.kv_heads > 0 ? spec.kv_heads : spec.heads;
  const std::int64_t kv = kv_heads * (d / spec.heads);  // the width of K and of V
  const std::int64_t positions = spec.rotary ? 0 : spec.positions > 0 ? spec.positions : s;
  const std::int64_t norm = spec.rms_norm ? d : 2 * d;
  const std::int64_t bias = spec.bias ? 1 : 0;

  Workload w;
  w.name = std::move(name);
  w.input = fmt::format("{} tokens", s);
  w.source = describe(spec, ffn, kv_heads, positions);
  auto add = [&w](std::string row, std::int64_t params, std::int64_t fwd, std::int64_t activations) {
    w.layers.push_back(Layer{std::move(row), static_cast<double>(params), static_cast<double>(fwd),
                             static_cast<double>(2 * fwd), static_cast<double>(activations)});
  };

  const std::int64_t type_embeddings_and_norm = spec.encoder ? 2 * d + norm : 0;
  add("embed", (vocab + positions) * d + type_embeddings_and_norm, 0, s * d);
  const std::int64_t attention_core = (spec.encoder ? 4 : 2) * s * s * d;
  // The norm, Q and output projections (d x d), K and V (d x kv), and their biases.
  const std::int64_t attn = norm + 2 * d * d + 2 * d * kv + bias * (2 * d + 2 * kv);
  // One MLP (one expert's): two or three matrices, the biases of their outputs.
  const std::int64_t mlp = spec.gated_mlp ? 3 * d * ffn + bias * (2 * ffn + d) : 2 * d * ffn + bias * (ffn + d);
  const std::int64_t router = d * spec.experts;
  for (int i = 0; i < spec.layers; ++i) {
    add(fmt::format("attn_{}", i), attn, 2 * attn * s + attention_core, s * d);
    if (spec.experts > 0) {
      add(fmt::format("moe_{}", i), norm + router + spec.experts * mlp, 2 * (norm + router + spec.top_k * mlp) * s,
          s * d);
    } else {
      add(fmt::format("mlp_{}", i), norm + mlp, 2 * (norm + mlp) * s, s * d);
    }
  }
  if (spec.encoder) {
    add("pooler", d * d + bias * d, 2 * (d * d + bias * d), d);
  } else {
    add("ln_f", norm, 2 * norm * s, s * d);
  }
  if (spec.lm_head) {
    add("lm_head", spec.tied_embeddings ? 0 : d * vocab, 2 * d * vocab * s, s * vocab);
  } else {
    add("lm_head", 0, 0, 0);  // a task head of negligible size
  }
  return w;
}

}  // namespace dtsim
