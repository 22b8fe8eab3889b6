// The `faults.*` job keys: the failure process, checkpoints, recovery and the horizon.
#pragma once

#include "core/scenario/key_table.hpp"

namespace dtsim {

// Appends the keys to the scenario key table (schema.cpp builds it).
void add_fault_keys(KeyTable& keys);

}  // namespace dtsim
