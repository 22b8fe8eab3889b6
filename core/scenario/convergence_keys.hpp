// The `run.convergence.*` keys: the proxy model, its data and how it is trained.
#pragma once

#include "core/scenario/key_table.hpp"

namespace dtsim {

// Appends the keys to the scenario key table (schema.cpp builds it).
void add_convergence_keys(KeyTable& keys);

}  // namespace dtsim
