// Keys a scenario sets that its other choices leave unused (sync.staleness under bsp, ...): one
// warning line each, so a setting that does nothing does not pass silently.
#pragma once

#include <string>
#include <vector>

#include "core/scenario/scenario.hpp"

namespace dtsim {

// "file:line:col: warning: <key>: ignored under sync.policy <p> (it applies to <q>)" per unused key.
std::vector<std::string> scenario_warnings(const Scenario& s);

}  // namespace dtsim
