// The `faults.*` job keys: the failure process, checkpoints, recovery and the horizon.
#pragma once

#include <vector>

#include "core/scenario/schema.hpp"

namespace dtsim {

// Appends the keys to the scenario key table (schema.cpp builds it).
void add_fault_keys(std::vector<ScenarioKey>& keys);

}  // namespace dtsim
