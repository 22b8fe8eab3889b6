// Presets applied to a scenario once it is read (finish_scenario, validate.cpp): each setting a preset gives goes
// through the key table's own parsers to the keys the scenario leaves unset, so a preset can only say what a user
// could.
//   cluster.preset (cluster_preset.hpp), else cluster.device's usual node (DeviceSpec::platform), then the link kinds'
//     rates; where each link group came from is recorded (Scenario::link_origins);
//   framework.preset (framework_preset.hpp), per job.
#pragma once

#include <string>

#include "core/scenario/scenario.hpp"

namespace dtsim {

// Whether the file or --set gave `key` (a preset's filling does not count).
bool is_set(const Scenario& s, const std::string& key);
// Whether cluster.preset gives `key` (a required key it fills counts as given).
bool preset_gives(const Scenario& s, const std::string& key);

// cluster.preset's settings; without one, the device's usual node for each link group the scenario gives no key of
// (the NVLink kind; the NICs' kind and one per device as there; the host CPU; none for cluster.device_mix); then the
// link kinds' rates for the rate keys left unset. Sets s.link_origins.
void apply_cluster_preset(Scenario& s);

// framework.preset of job `index`: each of its settings the job leaves unset.
void apply_framework_preset(Scenario& s, size_t index);

}  // namespace dtsim
