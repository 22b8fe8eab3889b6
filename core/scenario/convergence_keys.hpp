// The `run.convergence.*` keys: the proxy model, its data and how it is trained.
#pragma once

#include <vector>

#include "core/scenario/schema.hpp"

namespace dtsim {

// Appends the keys to the scenario key table (schema.cpp builds it).
void add_convergence_keys(std::vector<ScenarioKey>& keys);

}  // namespace dtsim
