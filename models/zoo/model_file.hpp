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

// A model file giving `shape` (what parse_model_definition reads back as the same shape): its name, its source as
// one quoted line, and every field of the shape (models/zoo/transformer_fields.hpp). `dtsim models import` writes it.
std::string model_file_text(const std::string& name, const std::string& source, const TransformerSpec& shape);

// The layer tables alone, of load_model_definition and parse_model_definition.
Workload load_model_file(const std::string& path);
Workload parse_model_text(std::string_view text, const std::string& origin);

}  // namespace dtsim
