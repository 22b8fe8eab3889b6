// Models in the zoo's file format: a user's model file (model.file) or the zoo's own entries. A file gives its
// layer table row by row (`columns:` and `layers:`) or its shape (`transformer:`), from which make_transformer
// generates the rows.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "models/zoo/transformer.hpp"
#include "models/zoo/workload.hpp"

namespace dtsim {

// A model file as read: its layer table, and its shape when the file gives one instead of rows.
struct ModelDefinition {
  Workload workload;
  std::optional<TransformerSpec> shape;
};

// Reads a model file; throws InputError with file:line:col.
ModelDefinition load_model_definition(const std::string& path);
// Reads a model from text in the file format; `origin` names it in errors.
ModelDefinition parse_model_definition(std::string_view text, const std::string& origin);

// The layer tables alone, of load_model_definition and parse_model_definition.
Workload load_model_file(const std::string& path);
Workload parse_model_text(std::string_view text, const std::string& origin);

}  // namespace dtsim
