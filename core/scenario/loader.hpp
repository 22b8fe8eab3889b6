// Loading a scenario from YAML (plus `--set key=value` overrides) into a validated Scenario.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/scenario/scenario.hpp"

namespace dtsim {

// Reads the file; throws InputError (file:line:col) for any mistake, RuntimeError if unreadable.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});
// The same from text; `origin` names it in errors and anchors relative paths.
Scenario load_scenario_text(std::string_view text, const std::string& origin,
                            const std::vector<std::string>& overrides = {});

}  // namespace dtsim
