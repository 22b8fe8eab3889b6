// The `model.transformer.*` job keys: TransformerSpec's fields under the names of models/zoo/transformer_fields.hpp
// (those of a model file's `transformer:` mapping), and how they combine with a model's own shape.
#pragma once

#include "core/scenario/key_table.hpp"

namespace dtsim {

// Appends the keys to the scenario key table (schema.cpp builds it).
void add_transformer_keys(KeyTable& keys);

}  // namespace dtsim
