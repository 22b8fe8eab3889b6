// Hand-built Chakra traces for the tests: nodes with their attributes, a set written to a fresh
// folder of its own, and a scenario that replays it on a small cluster.
#pragma once

#include <unistd.h>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/chakra/et_file.hpp"
#include "core/scenario/loader.hpp"

namespace dtsim::test {

inline EtNode et_node(std::uint64_t id, EtNodeType type, std::vector<std::uint64_t> deps = {},
                      std::vector<EtAttr> attrs = {}, std::uint64_t duration_micros = 0) {
  EtNode n;
  n.id = id;
  n.name = fmt::format("n{}", id);
  n.type = static_cast<int>(type);
  n.data_deps = std::move(deps);
  n.attrs = std::move(attrs);
  n.duration_micros = duration_micros;
  return n;
}

inline EtAttr et_int(const std::string& name, std::int64_t v) { return EtAttr{name, v}; }
inline EtAttr et_text(const std::string& name, const std::string& v) { return EtAttr{name, v}; }

// A fresh folder under the temporary folder, named after the test and this process.
inline std::string chakra_folder(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("dtsim_chakra_{}_{}", name, getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// Writes rank r's trace as <folder>/t.<r>.et; returns the prefix <folder>/t.
inline std::string write_set(const std::string& name, const std::vector<EtTrace>& ranks) {
  const std::string prefix = chakra_folder(name) + "/t";
  for (size_t r = 0; r < ranks.size(); ++r) write_et(fmt::format("{}.{}.et", prefix, r), ranks[r]);
  return prefix;
}

inline EtTrace et_trace(std::vector<EtNode> nodes, std::vector<EtAttr> metadata = {}) {
  EtTrace t;
  t.version = "0.0.4";
  t.metadata = std::move(metadata);
  t.nodes = std::move(nodes);
  return t;
}

// `nodes` nodes of one a100_80gb each on a star of 100 Gbit/s NICs (5 us), no switch latency; collectives as rings,
// whose closed form the tests hold both engines to.
inline Scenario replay_scenario(const std::string& prefix, int nodes, const std::string& timing = "auto") {
  return load_scenario_text(fmt::format(R"(name: replay
workload: {{chakra: {}, chakra_timing: {}}}
cluster:
  nodes: {}
  devices_per_node: 1
  device: a100_80gb
  nic: {{rate: 100Gbps, latency: 5us}}
  topology: {{kind: star, switch_latency: 0us}}
strategy: {{allreduce: {{algorithm: ring}}}}
run: {{iterations: 3, warmup: 1}}
)",
                                        prefix, timing, nodes),
                            "replay.yaml");
}

}  // namespace dtsim::test
