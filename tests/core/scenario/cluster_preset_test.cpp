// cluster.preset and the link kinds (cluster.intra_node.kind, cluster.nic.kind): the tables against the key table,
// the scenario and docs/collectives.md. A preset fills in exactly the cluster keys a scenario leaves unset, with the
// value the same key would take from the user; a kind gives its rate key's default; a key given in the file or by
// --set always wins.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "core/cluster/link_kinds.hpp"
#include "core/scenario/cluster_preset.hpp"
#include "core/scenario/loader.hpp"
#include "core/scenario/schema.hpp"
#include "tests/support/run_process.hpp"

using namespace dtsim;

namespace {

// A scenario that gives no cluster key but the ones a test writes.
constexpr const char* kBare = "name: c\nmodel: {name: resnet50}\nrun: {engine: analytical}\n";

Scenario bare(const std::vector<std::string>& overrides, const std::string& extra = "") {
  return load_scenario_text(std::string(kBare) + extra, "c.yaml", overrides);
}

// `text` in backquotes, as the docs write a value.
std::string code(std::string_view text) {
  std::string out(1, '`');
  out.append(text);
  out.push_back('`');
  return out;
}

std::string preset_arg(const ClusterPresetTraits& p) { return "cluster.preset=" + std::string(p.name); }

// The cluster keys a preset or a kind decides, side by side.
void check_same_cluster(const ClusterSpec& a, const ClusterSpec& b) {
  CHECK(a.device.name == b.device.name);
  CHECK(a.devices_per_node == b.devices_per_node);
  CHECK(a.intra_kind == b.intra_kind);
  CHECK(a.intra.rate == b.intra.rate);
  CHECK(a.nic_kind == b.nic_kind);
  CHECK(a.nics == b.nics);
  CHECK(a.nic.rate == b.nic.rate);
  CHECK(a.host_cpu == b.host_cpu);
  CHECK(a.efficiency == b.efficiency);
}

std::string error_of(const std::vector<std::string>& overrides, const std::string& extra = "") {
  try {
    bare(overrides, extra);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the cluster presets' table lists every preset once, in the enum's order, each key with a source") {
  const auto presets = cluster_presets();
  REQUIRE(presets.size() == 11);
  std::set<std::string_view> names;
  for (size_t i = 0; i < presets.size(); ++i) {
    const ClusterPresetTraits& p = presets[i];
    CHECK(static_cast<size_t>(p.preset) == i);
    CHECK(&cluster_preset(p.preset) == &p);
    CHECK(names.insert(p.name).second);
    CHECK_FALSE(p.system.empty());
    std::set<std::string_view> keys;
    for (const PresetSetting& s : p.settings) {
      INFO(p.name << ": " << s.key);
      CHECK(keys.insert(s.key).second);
      const ScenarioKey* k = find_scenario_key(std::string(s.key));
      REQUIRE(k != nullptr);
      CHECK(k->scope == KeyScope::Run);
      CHECK(s.source.size() > 10);
      // The value parses as the user's would: the same scenario with the key written by hand.
      CHECK_NOTHROW(bare({"cluster.device=a100_80gb", std::string(s.key) + "=" + std::string(s.value)}));
    }
    // Every system is described whole: no preset leaves one of these to dtsim's defaults.
    if (i > 0) {
      for (const char* key : {"cluster.device", "cluster.devices_per_node", "cluster.intra_node.kind",
                              "cluster.nic.kind", "cluster.nic.count", "cluster.cpu"}) {
        INFO(p.name << ": " << key);
        CHECK(keys.count(key) == 1);
      }
    }
  }
  CHECK(cluster_presets().front().settings.empty());  // none
}

TEST_CASE("the link kinds' tables list every kind once, in the enum's order, with a rate that parses and a source") {
  std::set<std::string_view> names;
  for (size_t i = 0; i < intra_link_kinds().size(); ++i) {
    const IntraLinkTraits& k = intra_link_kinds()[i];
    INFO(k.name);
    CHECK(static_cast<size_t>(k.kind) == i);
    CHECK(&intra_link(k.kind) == &k);
    CHECK(names.insert(k.name).second);
    CHECK(k.source.size() > 20);
    CHECK(k.rate.empty() == (k.generation == 0));  // a named generation has its data sheet's rate
    CHECK((k.nvlink && k.generation > 0) == (k.link_rate > 0));
    const Scenario s = bare({"cluster.device=a100_80gb", "cluster.intra_node.kind=" + std::string(k.name)});
    if (!k.rate.empty()) {
      CHECK(s.cluster.intra.rate ==
            bare({"cluster.device=a100_80gb", "cluster.intra_node.rate=" + std::string(k.rate)}).cluster.intra.rate);
    }
  }
  names.clear();
  for (size_t i = 0; i < nic_kinds().size(); ++i) {
    const NicTraits& k = nic_kinds()[i];
    INFO(k.name);
    CHECK(static_cast<size_t>(k.kind) == i);
    CHECK(&nic_kind(k.kind) == &k);
    CHECK(names.insert(k.name).second);
    CHECK(k.source.size() > 20);
    CHECK(k.rate.empty() == (k.kind == NicKind::Custom));
    // A stack that sets anything in NCCL is named and cited; NCCL's own transports set nothing.
    const NcclStack own;
    const bool sets = k.stack.declared_latency != own.declared_latency || k.stack.nvls_chunk != own.nvls_chunk ||
                      k.stack.nvls_tree_max_chunk != own.nvls_tree_max_chunk || k.stack.ll != own.ll ||
                      k.stack.rails_per_gpu != own.rails_per_gpu;
    CHECK(sets == !k.stack.name.empty());
    CHECK(k.stack.name.empty() == k.stack.source.empty());
    if (!k.stack.name.empty()) CHECK(k.stack.source.size() > 20);
    const Scenario s = bare({"cluster.device=a100_80gb", "cluster.nic.kind=" + std::string(k.name)});
    if (!k.rate.empty()) {
      CHECK(s.cluster.nic.rate ==
            bare({"cluster.device=a100_80gb", "cluster.nic.rate=" + std::string(k.rate)}).cluster.nic.rate);
    }
  }
}

TEST_CASE("a link kind sets its rate's default, a rate the scenario gives wins, nvlink, pcie and custom keep theirs") {
  // A device without a usual node (device_platform_test.cpp: an H100 brings DGX H100's links) keeps the defaults.
  const Scenario plain = bare({"cluster.device=a100_80gb"});
  CHECK(plain.cluster.intra.rate == Approx(300e9));
  CHECK(plain.cluster.nic.rate == Approx(12.5e9));
  CHECK(bare({"cluster.device=h100_sxm", "cluster.intra_node.kind=pcie"}).cluster.intra.rate == Approx(300e9));
  const Scenario h100 = bare({"cluster.device=h100_sxm", "cluster.intra_node.kind=nvlink4", "cluster.nic.kind=ib_ndr"});
  CHECK(h100.cluster.intra.rate == Approx(450e9));
  CHECK(h100.cluster.nic.rate == Approx(50e9));
  CHECK(bare({"cluster.device=h100_sxm", "cluster.intra_node.kind=nvlink5"}).cluster.intra.rate == Approx(900e9));
  CHECK(bare({"cluster.device=h100_sxm", "cluster.intra_node.kind=pcie5"}).cluster.intra.rate == Approx(63e9));
  CHECK(bare({"cluster.device=a100_80gb", "cluster.nic.kind=ib_xdr"}).cluster.nic.rate == Approx(100e9));
  // Given in the file, before or after the kind, or by --set: the given rate.
  for (const char* extra : {"cluster: {device: h100_sxm, intra_node: {kind: nvlink4, rate: 400GB/s}}\n",
                            "cluster: {device: h100_sxm, intra_node: {rate: 400GB/s, kind: nvlink4}}\n"}) {
    CHECK(bare({}, extra).cluster.intra.rate == Approx(400e9));
  }
  CHECK(bare({"cluster.nic.rate=100Gbps"}, "cluster: {device: h100_sxm, nic: {kind: ib_ndr}}\n").cluster.nic.rate ==
        Approx(12.5e9));
}

TEST_CASE("a cluster preset sets what the scenario leaves unset, exactly as the keys written by hand would") {
  for (const ClusterPresetTraits& p : cluster_presets()) {
    if (p.settings.empty()) continue;
    INFO(p.name);
    std::vector<std::string> by_hand;
    for (const PresetSetting& s : p.settings) by_hand.push_back(std::string(s.key) + "=" + std::string(s.value));
    const Scenario preset = bare({preset_arg(p)});
    const Scenario hand = bare(by_hand);
    CHECK(preset.cluster_preset == p.preset);
    check_same_cluster(preset.cluster, hand.cluster);
  }
  const ClusterSpec a100 = bare({"cluster.preset=dgx_a100"}).cluster;
  CHECK(a100.device.name == "a100_80gb");
  CHECK(a100.devices_per_node == 8);
  CHECK(a100.intra_kind == IntraLinkKind::NvLink3);
  CHECK(a100.intra.rate == Approx(300e9));
  CHECK(a100.nics == 8);
  CHECK(a100.nic.rate == Approx(25e9));
  CHECK(a100.host_cpu == HostCpu::Amd);
  CHECK(a100.server_nic.rate == Approx(25e9));  // a dedicated server's NIC follows the nodes' unless given
  const ClusterSpec p5 = bare({"cluster.preset=aws_p5"}).cluster;
  CHECK(p5.nics * p5.nic.rate == Approx(400e9));  // 3,200 Gbps of EFA
  CHECK(bare({"cluster.preset=dgx_h200"}).cluster.device.name == "h200");
  const ClusterSpec b200 = bare({"cluster.preset=dgx_b200"}).cluster;
  CHECK(b200.device.name == "b200");
  CHECK(b200.intra.rate == Approx(900e9));  // NVLink 5: 1.8 TB/s both ways
  const ClusterSpec roce = bare({"cluster.preset=hgx_h100_roce"}).cluster;
  CHECK(roce.nic_kind == NicKind::Roce400);
  CHECK(roce.nics * roce.nic.rate == Approx(400e9));  // 8 x 400 Gb/s, one per GPU
  CHECK(roce.host_cpu == HostCpu::Intel);
}

TEST_CASE("a key the scenario or --set gives wins over its cluster preset, wherever it is written") {
  for (const char* extra : {"cluster: {preset: dgx_h100, device: a100_80gb, nic: {count: 2}}\n",
                            "cluster: {nic: {count: 2}, device: a100_80gb, preset: dgx_h100}\n"}) {
    const ClusterSpec c = bare({}, extra).cluster;
    CHECK(c.device.name == "a100_80gb");
    CHECK(c.efficiency == Approx(load_device("a100_80gb").efficiency));
    CHECK(c.nics == 2);
    CHECK(c.nic.rate == Approx(50e9));  // the preset's ib_ndr, unset in the file
    CHECK(c.intra_kind == IntraLinkKind::NvLink4);
  }
  const ClusterSpec set = bare({"cluster.preset=dgx_h100", "cluster.nic.kind=ib_hdr", "cluster.intra_node.rate=1TB/s",
                                "cluster.devices_per_node=4", "cluster.cpu=arm"})
                              .cluster;
  CHECK(set.nic.rate == Approx(25e9));
  CHECK(set.intra.rate == Approx(1e12));
  CHECK(set.devices_per_node == 4);
  CHECK(set.host_cpu == HostCpu::Arm);
  CHECK(set.device.name == "h100_sxm");
  // A preset given by --set over a file's keys.
  CHECK(bare({"cluster.preset=dgx_a100"}, "cluster: {device: h200}\n").cluster.device.name == "h200");
}

TEST_CASE("cluster.device is required unless a preset gives it") {
  CHECK_NOTHROW(bare({"cluster.preset=gcp_a3_mega"}));
  const std::string missing = error_of({});
  CHECK_THAT(missing, Catch::Contains("missing key 'cluster.device'") && Catch::Contains("cluster.preset"));
}

TEST_CASE("an unknown preset or kind is refused in one line naming the key, where it is written and the valid names") {
  const std::string preset = error_of({}, "cluster:\n  preset: dgx_h101\n");
  CHECK_THAT(preset, Catch::StartsWith("c.yaml:5:11: error: cluster.preset: 'dgx_h101' is not valid (valid: none, "
                                       "dgx_a100, dgx_h100") &&
                         Catch::Contains("azure_nd_h100_v5") && Catch::Contains("did you mean"));
  CHECK(std::count(preset.begin(), preset.end(), '\n') == 0);
  const std::string intra = error_of({"cluster.device=h100_sxm", "cluster.intra_node.kind=nvlink6"});
  CHECK_THAT(intra, Catch::Contains("cluster.intra_node.kind=nvlink6") && Catch::Contains("'nvlink6' is not valid") &&
                        Catch::Contains("nvlink3, nvlink4, nvlink5, pcie3, pcie4, pcie5"));
  const std::string nic = error_of({"cluster.device=h100_sxm", "cluster.nic.kind=ib_edr"});
  CHECK_THAT(nic, Catch::Contains("cluster.nic.kind") && Catch::Contains("ib_hdr, ib_ndr, ib_xdr") &&
                      Catch::Contains("tcpxo_200"));
}

TEST_CASE("docs/collectives.md gives every preset's settings and every kind's rate as the tables hold them") {
  const std::string doc = test::slurp(std::string(DTSIM_SOURCE_DIR) + "/docs/collectives.md");
  const size_t section = doc.find("\n## Cluster presets\n");
  REQUIRE(section != std::string::npos);
  const std::string text = doc.substr(section);
  auto line_of = [&](std::string_view name) {
    const std::string head = "- " + code(name);
    const size_t at = text.find(head);
    INFO(name);
    REQUIRE(at != std::string::npos);
    return text.substr(at, text.find('\n', at) - at);
  };
  for (const ClusterPresetTraits& p : cluster_presets()) {
    const std::string line = line_of(p.name);
    for (const PresetSetting& s : p.settings) {
      INFO(p.name << ": " << s.key);
      CHECK(line.find(code(std::string(s.key) + ": " + std::string(s.value))) != std::string::npos);
    }
  }
  for (const IntraLinkTraits& k : intra_link_kinds()) {
    if (!k.rate.empty()) CHECK(line_of(k.name).find(code(k.rate)) != std::string::npos);
  }
  for (const NicTraits& k : nic_kinds()) {
    if (!k.rate.empty()) CHECK(line_of(k.name).find(code(k.rate)) != std::string::npos);
    if (!k.stack.name.empty()) CHECK(line_of(k.name).find(std::string(k.stack.name)) != std::string::npos);
  }
}
