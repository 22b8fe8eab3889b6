// Presets applied to a scenario (preset_apply.hpp).
#include "core/scenario/preset_apply.hpp"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "core/cluster/link_kinds.hpp"
#include "core/scenario/cluster_preset.hpp"
#include "core/scenario/framework_preset.hpp"
#include "core/scenario/schema.hpp"

namespace dtsim {
namespace {

// A run key the scenario leaves unset, parsed by the key table from `value` as a user's would be, from `origin`.
void fill_unset(Scenario& s, std::string_view key, std::string_view value, const std::string& origin) {
  if (value.empty() || is_set(s, std::string(key))) return;
  const ScenarioKey* k = find_scenario_key(std::string(key));
  if (k == nullptr || k->scope != KeyScope::Run)
    throw RuntimeError(fmt::format("{}: {} is not a run key", origin, key));
  k->set(s, ScalarValue(std::string(key), std::string(value), SourceLocation{origin}));
}

// The value a preset gives `key`, or "".
std::string_view preset_value(const ClusterPresetTraits& preset, std::string_view key) {
  for (const PresetSetting& setting : preset.settings) {
    if (setting.key == key) return setting.value;
  }
  return {};
}

// The link groups the scenario gives a key of.
struct GivenLinks {
  bool intra = false;
  bool nic = false;
};

// cluster.device's usual node (DeviceSpec::platform, a cluster preset), where the scenario names no preset: each link
// group it gives no key of, as the preset has it: the NVLink kind; the NICs' kind and as many per device as there (a
// node of fewer devices has fewer); the host CPU. A heterogeneous cluster (cluster.device_mix) takes none. Returns
// the groups it filled.
GivenLinks apply_device_platform(Scenario& s, GivenLinks user) {
  const DeviceSpec& device = s.cluster.device;
  if (s.cluster_preset != ClusterPreset::None || device.platform.empty() || !s.cluster.node_devices.empty()) return {};
  const auto& presets = cluster_presets();
  const auto preset = std::find_if(presets.begin(), presets.end(),
                                   [&](const ClusterPresetTraits& p) { return p.name == device.platform; });
  if (preset == presets.end()) {
    throw RuntimeError(
        fmt::format("devices.yaml: {}: platform {} is not a cluster.preset", device.name, device.platform));
  }
  const std::string origin =
      fmt::format("cluster.device {}'s usual node, cluster.preset {}", device.name, preset->name);
  if (!user.intra) fill_unset(s, "cluster.intra_node.kind", preset_value(*preset, "cluster.intra_node.kind"), origin);
  if (!user.nic) {
    fill_unset(s, "cluster.nic.kind", preset_value(*preset, "cluster.nic.kind"), origin);
    const int per_node = std::stoi(std::string(preset_value(*preset, "cluster.devices_per_node")));
    const int nics = std::stoi(std::string(preset_value(*preset, "cluster.nic.count")));
    const int count = std::max(1, nics * std::max(1, s.cluster.devices_per_node) / per_node);
    fill_unset(s, "cluster.nic.count", std::to_string(count), origin);
  }
  fill_unset(s, "cluster.cpu", preset_value(*preset, "cluster.cpu"), origin);
  return {!user.intra, !user.nic};
}

}  // namespace

bool is_set(const Scenario& s, const std::string& key) { return s.where.count(key) > 0; }

bool preset_gives(const Scenario& s, const std::string& key) {
  return !preset_value(cluster_preset(s.cluster_preset), key).empty();
}

void apply_cluster_preset(Scenario& s) {
  const ClusterPresetTraits& preset = cluster_preset(s.cluster_preset);
  const std::string origin = fmt::format("cluster.preset {}", preset.name);
  const GivenLinks user{
      is_set(s, "cluster.intra_node.kind") || is_set(s, "cluster.intra_node.rate"),
      is_set(s, "cluster.nic.kind") || is_set(s, "cluster.nic.rate") || is_set(s, "cluster.nic.count")};
  for (const PresetSetting& setting : preset.settings) fill_unset(s, setting.key, setting.value, origin);
  const GivenLinks platform = apply_device_platform(s, user);
  const auto origin_of = [&](bool by_user, bool by_platform) {
    if (by_user) return std::string("the scenario");
    if (s.cluster_preset != ClusterPreset::None) return origin;
    if (by_platform) return fmt::format("{}'s usual node ({})", s.cluster.device.name, s.cluster.device.platform);
    return std::string("dtsim's default");
  };
  s.link_origins = {origin_of(user.intra, platform.intra), origin_of(user.nic, platform.nic)};
  const IntraLinkTraits& intra = intra_link(s.cluster.intra_kind);
  fill_unset(s, "cluster.intra_node.rate", intra.rate, fmt::format("cluster.intra_node.kind {}", intra.name));
  const NicTraits& nic = nic_kind(s.cluster.nic_kind);
  fill_unset(s, "cluster.nic.rate", nic.rate, fmt::format("cluster.nic.kind {}", nic.name));
}

void apply_framework_preset(Scenario& s, size_t index) {
  JobSpec& job = s.jobs[index];
  const PresetTraits& preset = framework_preset(job.framework.preset);
  for (const PresetSetting& setting : preset.settings) {
    const std::string key = s.job_key(index, std::string(setting.key));
    if (is_set(s, key)) continue;
    const ScenarioKey* k = find_scenario_key(std::string(setting.key));
    if (k == nullptr || k->scope != KeyScope::Job) {
      throw RuntimeError(fmt::format("framework.preset {}: {} is not a job key", preset.name, setting.key));
    }
    k->set_job(job, ScalarValue(key, std::string(setting.value),
                                SourceLocation{fmt::format("framework.preset {}", preset.name)}));
  }
}

}  // namespace dtsim
