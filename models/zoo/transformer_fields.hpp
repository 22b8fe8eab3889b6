// The fields of TransformerSpec by name: one table for every place a shape is read from text. A model file's
// `transformer:` mapping (models/zoo/model_file.cpp), the scenario keys model.transformer.* (core/scenario/schema.cpp)
// and their overrides of a zoo model's shape (core/scenario/validate.cpp) all use these names.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "models/zoo/transformer.hpp"

namespace dtsim {

struct TransformerField {
  // A count (int), a flag (bool) or a number (double) of TransformerSpec.
  using Member = std::variant<int TransformerSpec::*, bool TransformerSpec::*, double TransformerSpec::*>;
  std::string_view name;  // "kv_heads": the key in a `transformer:` mapping, and after "model.transformer."
  Member member;
  int min = 0;  // the smallest value of a count or a number
  int max = 1;  // the largest (far beyond any published model: see transformer_fields.cpp)
  std::string_view doc;
  bool above_min = false;  // the value must exceed `min` (window_layers: a share above 0)
};

// In TransformerSpec's order.
std::span<const TransformerField> transformer_fields();
const TransformerField* find_transformer_field(std::string_view name);
std::vector<std::string> transformer_field_names();

// The field's value in `spec` as a value would be written: "8", "true", "1.25".
std::string field_text(const TransformerField& f, const TransformerSpec& spec);
// "count", "bool" or "number": the field's type as docs/scenarios.md shows it.
std::string_view field_type(const TransformerField& f);
// Copies the field's value from `from` into `to`.
void copy_field(const TransformerField& f, const TransformerSpec& from, TransformerSpec& to);

}  // namespace dtsim
