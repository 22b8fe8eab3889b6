// make_transformer: a GPT- or BERT-style transformer's layer table from its shape (rules in workload.hpp).
#include "core/zoo/transformer.hpp"

#include <cstdint>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim {
namespace {

void check_positive(int value, const char* what) {
  if (value < 1) throw InputError(fmt::format("a transformer needs a positive {}, not {}", what, value));
}

}  // namespace

Workload make_transformer(const TransformerSpec& spec, std::string name) {
  check_positive(spec.layers, "number of layers");
  check_positive(spec.hidden, "hidden size");
  check_positive(spec.heads, "number of heads");
  check_positive(spec.seq_len, "sequence length");
  check_positive(spec.vocab, "vocabulary");
  if (spec.hidden % spec.heads != 0) {
    throw InputError(
        fmt::format("a transformer's hidden size ({}) must be a multiple of its heads ({})", spec.hidden, spec.heads));
  }
  if (spec.ffn < 0 || spec.positions < 0) throw InputError("a transformer's ffn and positions must not be negative");

  // Integers up to 2^53 are exact in double; every count here stays far below that even for GPT-3.
  const std::int64_t d = spec.hidden;
  const std::int64_t s = spec.seq_len;
  const std::int64_t vocab = spec.vocab;
  const std::int64_t ffn = spec.ffn > 0 ? spec.ffn : 4 * d;
  const std::int64_t positions = spec.positions > 0 ? spec.positions : s;

  Workload w;
  w.name = std::move(name);
  w.input = fmt::format("{} tokens", s);
  w.source =
      fmt::format("make_transformer: {} {} layers, hidden {}, {} heads, ffn {}, vocab {}, {} positions, {} embeddings",
                  spec.encoder ? "encoder" : "decoder", spec.layers, d, spec.heads, ffn, vocab, positions,
                  spec.tied_embeddings ? "tied" : "untied");
  auto add = [&w](std::string row, std::int64_t params, std::int64_t fwd, std::int64_t activations) {
    w.layers.push_back(Layer{std::move(row), static_cast<double>(params), static_cast<double>(fwd),
                             static_cast<double>(2 * fwd), static_cast<double>(activations)});
  };

  const std::int64_t type_embeddings_and_norm = spec.encoder ? 2 * d + 2 * d : 0;
  add("embed", (vocab + positions) * d + type_embeddings_and_norm, 0, s * d);
  const std::int64_t attention_core = (spec.encoder ? 4 : 2) * s * s * d;
  const std::int64_t attn = 2 * d + 4 * d * d + 4 * d;     // layer norm, Q/K/V/output projections with biases
  const std::int64_t mlp = 2 * d + 2 * d * ffn + ffn + d;  // layer norm, two linear layers with biases
  for (int i = 0; i < spec.layers; ++i) {
    add(fmt::format("attn_{}", i), attn, 2 * attn * s + attention_core, s * d);
    add(fmt::format("mlp_{}", i), mlp, 2 * mlp * s, s * d);
  }
  if (spec.encoder) {
    add("pooler", d * d + d, 2 * (d * d + d), d);
  } else {
    add("ln_f", 2 * d, 2 * 2 * d * s, s * d);
  }
  add("lm_head", spec.tied_embeddings ? 0 : d * vocab, 2 * d * vocab * s, s * vocab);
  return w;
}

}  // namespace dtsim
