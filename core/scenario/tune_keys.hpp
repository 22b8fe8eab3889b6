// The `tune.*` job keys: the constraints `dtsim tune` searches a hybrid job's layouts within.
#pragma once

#include "core/scenario/key_table.hpp"

namespace dtsim {

// Appends the keys to the scenario key table (schema.cpp builds it).
void add_tune_keys(KeyTable& keys);

}  // namespace dtsim
