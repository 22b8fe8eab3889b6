// The `workload.chakra*` job keys: a job whose ranks replay a set of Chakra execution traces.
#pragma once

#include "core/scenario/key_table.hpp"

namespace dtsim {

// Appends the keys to the scenario key table (schema.cpp builds it).
void add_chakra_keys(KeyTable& keys);

}  // namespace dtsim
