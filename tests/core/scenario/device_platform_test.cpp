// A device's usual node (devices.yaml `platform`, core/scenario/validate.cpp): a scenario that names an H100, H200 or
// B200 and no preset gets its DGX node's links for each link group it leaves unset, one NIC per device as there;
// a key of a group, a preset or a heterogeneous cluster keeps that group as the scenario says; the summary's origin of
// each group. Every platform is a preset whose own device is that device.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/cluster/link_kinds.hpp"
#include "core/scenario/cluster_preset.hpp"
#include "core/scenario/loader.hpp"
#include "models/zoo/device.hpp"

using namespace dtsim;

namespace {

constexpr const char* kBare = "name: c\nmodel: {name: resnet50}\nrun: {engine: analytical}\n";

Scenario with(const std::vector<std::string>& overrides) { return load_scenario_text(kBare, "c.yaml", overrides); }

const ClusterPresetTraits& preset_named(std::string_view name) {
  for (const ClusterPresetTraits& p : cluster_presets()) {
    if (p.name == name) return p;
  }
  FAIL("no preset " << name);
  return cluster_presets().front();
}

std::string setting(const ClusterPresetTraits& p, std::string_view key) {
  for (const PresetSetting& s : p.settings) {
    if (s.key == key) return std::string(s.value);
  }
  return "";
}

}  // namespace

TEST_CASE("device platform: each names a preset whose device it is") {
  int with_platform = 0;
  for (const std::string& name : device_names()) {
    const DeviceSpec d = load_device(name);
    if (d.platform.empty()) continue;
    ++with_platform;
    INFO(name << " -> " << d.platform);
    CHECK(setting(preset_named(d.platform), "cluster.device") == name);
  }
  CHECK(with_platform == 3);  // h100_sxm, h200, b200
  CHECK(load_device("h100_sxm").platform == "dgx_h100");
  CHECK(load_device("a100_80gb").platform.empty());
}

TEST_CASE("device platform: an H100 without link keys gets DGX H100's links, one NIC per GPU") {
  for (int per_node : {8, 4, 1}) {
    const Scenario s =
        with({"cluster.device=h100_sxm", "cluster.nodes=2", "cluster.devices_per_node=" + std::to_string(per_node)});
    INFO(per_node << " GPUs a node");
    CHECK(s.cluster.intra_kind == IntraLinkKind::NvLink4);
    CHECK(s.cluster.intra.rate == Approx(450e9));
    CHECK(s.cluster.nic_kind == NicKind::IbNdr);
    CHECK(s.cluster.nics == per_node);
    CHECK(s.cluster.nic.rate == Approx(50e9));
    CHECK(s.cluster.host_cpu == HostCpu::Intel);
    CHECK(s.link_origins.intra == "h100_sxm's usual node (dgx_h100)");
    CHECK(s.link_origins.nic == s.link_origins.intra);
  }
  // The same cluster as the preset names it, on 8 GPUs a node.
  const Scenario platform = with({"cluster.device=h100_sxm", "cluster.devices_per_node=8"});
  const Scenario preset = with({"cluster.preset=dgx_h100"});
  CHECK(platform.cluster.intra.rate == preset.cluster.intra.rate);
  CHECK(platform.cluster.nics == preset.cluster.nics);
  CHECK(platform.cluster.nic.rate == preset.cluster.nic.rate);
  CHECK(preset.link_origins.intra == "cluster.preset dgx_h100");
  const Scenario b200 = with({"cluster.device=b200", "cluster.devices_per_node=8"});
  CHECK(b200.cluster.intra_kind == IntraLinkKind::NvLink5);
  CHECK(b200.cluster.intra.rate == Approx(900e9));
}

TEST_CASE("device platform: a key of a link group keeps that group as the scenario gives it") {
  // A NIC key: the NICs are the scenario's (one of 200 Gb/s), NVLink still the platform's.
  const Scenario nic = with({"cluster.device=h100_sxm", "cluster.devices_per_node=8", "cluster.nic.rate=200Gbps"});
  CHECK(nic.cluster.nics == 1);
  CHECK(nic.cluster.nic.rate == Approx(25e9));
  CHECK(nic.cluster.intra.rate == Approx(450e9));
  CHECK(nic.link_origins.nic == "the scenario");
  CHECK(nic.link_origins.intra == "h100_sxm's usual node (dgx_h100)");
  // An intra-node key: NVLink at the scenario's rate, the NICs the platform's.
  const Scenario intra =
      with({"cluster.device=h100_sxm", "cluster.devices_per_node=8", "cluster.intra_node.rate=300GB/s"});
  CHECK(intra.cluster.intra.rate == Approx(300e9));
  CHECK(intra.cluster.nics == 8);
  // A preset wins over the platform: AWS p5's EFA, not DGX H100's InfiniBand.
  const Scenario p5 = with({"cluster.preset=aws_p5"});
  CHECK(p5.cluster.nic_kind == NicKind::Efa100);
  CHECK(p5.link_origins.nic == "cluster.preset aws_p5");
  // A device without a platform keeps dtsim's defaults, and says so.
  const Scenario a100 = with({"cluster.device=a100_80gb", "cluster.devices_per_node=8"});
  CHECK(a100.cluster.intra.rate == Approx(300e9));
  CHECK(a100.cluster.nics == 1);
  CHECK(a100.cluster.nic.rate == Approx(12.5e9));
  CHECK(a100.link_origins.intra == "dtsim's default");
  // A heterogeneous cluster takes no platform.
  const Scenario mix = with({"cluster.device=h100_sxm", "cluster.nodes=2", "cluster.devices_per_node=8",
                             "cluster.device_mix=h100_sxm:1,a100_80gb:1"});
  CHECK(mix.cluster.nics == 1);
  CHECK(mix.link_origins.intra == "dtsim's default");
  // The host CPU alone given: the NICs and NVLink still the platform's, the CPU the scenario's.
  const Scenario amd = with({"cluster.device=h200", "cluster.devices_per_node=8", "cluster.cpu=amd"});
  CHECK(amd.cluster.host_cpu == HostCpu::Amd);
  CHECK(amd.cluster.nics == 8);
}
