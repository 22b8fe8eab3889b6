// The `framework.*` job keys: the training framework's own costs (core/scenario/framework.hpp).
#pragma once

#include "core/scenario/key_table.hpp"

namespace dtsim {

// Appends the keys to the scenario key table (schema.cpp builds it).
void add_framework_keys(KeyTable& keys);

}  // namespace dtsim
