// The `tune.*` job keys: the constraints `dtsim tune` searches a hybrid job's layouts within.
#pragma once

#include <vector>

#include "core/scenario/schema.hpp"

namespace dtsim {

// Appends the keys to the scenario key table (schema.cpp builds it).
void add_tune_keys(std::vector<ScenarioKey>& keys);

}  // namespace dtsim
