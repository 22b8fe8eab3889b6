// The `framework.*` job keys: the training framework's own costs (core/scenario/framework.hpp).
#pragma once

#include <vector>

#include "core/scenario/schema.hpp"

namespace dtsim {

// Appends the keys to the scenario key table (schema.cpp builds it).
void add_framework_keys(std::vector<ScenarioKey>& keys);

}  // namespace dtsim
