// Framework presets (framework.preset), in one table (framework_preset.cpp): what a training framework does by
// default that dtsim has a key for, written as the keys and values a user would write, each with where in that
// framework's code or docs it comes from (bench/llm/sources/framework_presets.md gathers them). A preset fills in
// the keys a scenario leaves unset; a key the scenario (or --set) gives always wins. It is applied once, when the
// scenario is finished (validate.cpp), through the key table's own parsers, so a preset can only say what a user
// could. Adding a preset is its enumerator in FrameworkPreset, its entry in framework_preset.cpp (a switch with no
// default: -Wswitch asks for it) and its line in docs/engines.md, Framework presets (a test holds the two together).
#pragma once

#include <span>
#include <string_view>

#include "core/scenario/framework.hpp"
#include "core/scenario/preset_setting.hpp"

namespace dtsim {

struct PresetTraits {
  FrameworkPreset preset = FrameworkPreset::None;
  std::string_view name;       // as framework.preset spells it
  std::string_view framework;  // the framework and the version its defaults are read at
  std::span<const PresetSetting> settings;
};

// Every preset, in the enum's order (none first: no settings).
std::span<const PresetTraits> framework_presets();
const PresetTraits& framework_preset(FrameworkPreset p);

}  // namespace dtsim
