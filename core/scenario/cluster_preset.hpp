// Cluster presets (cluster.preset), in one table (cluster_preset.cpp): a system as its data sheet describes it,
// written as the cluster keys a user would write (cluster.device, cluster.devices_per_node, cluster.intra_node.kind,
// cluster.nic.kind, cluster.nic.count, cluster.cpu), each with the data sheet or vendor page it comes from. A preset
// fills in the keys a scenario leaves unset (cluster.device then need not be given); a key the scenario (or --set)
// gives always wins. It is applied once, when the scenario is finished (validate.cpp), through the key table's own
// parsers, before the link kinds give their rates (core/cluster/link_kinds.hpp), so a preset can only say what a user
// could. Adding a preset is its enumerator in ClusterPreset, its entry in cluster_preset.cpp (a switch with no
// default: -Wswitch asks for it) and its line in docs/collectives.md, Cluster presets (a test holds the two
// together).
#pragma once

#include <span>
#include <string_view>

#include "core/scenario/preset_setting.hpp"

namespace dtsim {

enum class ClusterPreset {
  None,
  DgxA100,
  DgxH100,
  DgxH200,
  DgxB200,
  HgxH100Roce,
  AwsP4de,
  AwsP5,
  GcpA3High,
  GcpA3Mega,
  AzureNdH100V5
};

struct ClusterPresetTraits {
  ClusterPreset preset = ClusterPreset::None;
  std::string_view name;    // as cluster.preset spells it
  std::string_view system;  // the system, as its vendor names it
  std::span<const PresetSetting> settings;
};

// Every preset, in the enum's order (none first: no settings).
std::span<const ClusterPresetTraits> cluster_presets();
const ClusterPresetTraits& cluster_preset(ClusterPreset p);

}  // namespace dtsim
