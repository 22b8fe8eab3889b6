// One default of a preset (framework.preset, framework_preset.hpp; cluster.preset, cluster_preset.hpp): a scenario
// key, its value as a user writes it, and where the value comes from.
#pragma once

#include <string_view>

namespace dtsim {

struct PresetSetting {
  std::string_view key;
  std::string_view value;
  std::string_view source;
};

}  // namespace dtsim
