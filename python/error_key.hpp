// The scenario key a located InputError points at, for dtsim.ScenarioError.key: the key written on
// the error's line of the scenario's YAML, or the key of a `--set key=value` (scenario.set()).
#pragma once

#include <optional>
#include <string>

#include "core/base/error.hpp"

namespace dtsim::py {

// `text` is the scenario's YAML and `origin` the name its errors carry; none when the error names
// no line of it (or the text is not YAML).
std::optional<std::string> error_key(const InputError& e, const std::string& text, const std::string& origin);

}  // namespace dtsim::py
