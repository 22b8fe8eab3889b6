// The one line a scenario is refused with (InputError::what(): file:line:col: error: ...), or
// "no error" when it loads.
#pragma once

#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/scenario/loader.hpp"

namespace dtsim::test {

// A scenario that loads: 2 nodes of 4 A100s training ResNet-50 (7 lines; tests append keys to it).
inline const char* const kGoodScenario = R"(name: t
model:
  name: resnet50
cluster:
  nodes: 2
  devices_per_node: 4
  device: a100_40gb
)";

inline std::string error_of(const std::string& text, const std::vector<std::string>& sets = {},
                            const std::string& origin = "x.yaml") {
  try {
    load_scenario_text(text, origin, sets);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace dtsim::test
