// The `workload.chakra*` job keys: a job whose ranks replay a set of Chakra execution traces.
#pragma once

#include <vector>

#include "core/scenario/schema.hpp"

namespace dtsim {

// Appends the keys to the scenario key table (schema.cpp builds it).
void add_chakra_keys(std::vector<ScenarioKey>& keys);

}  // namespace dtsim
