// The scenario's YAML from Megatron-LM's arguments (megatron_scenario.hpp).
#include "core/scenario/megatron_scenario.hpp"

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim {
namespace {

// YAML from dotted keys, nested by their segments in first-appearance order.
void emit(std::ostringstream& os, const std::vector<std::pair<std::vector<std::string>, std::string>>& keys,
          size_t depth) {
  std::vector<std::string> order;
  for (const auto& [path, value] : keys) {
    if (std::find(order.begin(), order.end(), path[depth]) == order.end()) order.push_back(path[depth]);
  }
  for (const std::string& head : order) {
    std::vector<std::pair<std::vector<std::string>, std::string>> below;
    for (const auto& kv : keys) {
      if (kv.first[depth] != head) continue;
      if (kv.first.size() == depth + 1) {
        os << std::string(2 * depth, ' ') << head << ": " << kv.second << "\n";
      } else {
        below.push_back(kv);
      }
    }
    if (below.empty()) continue;
    os << std::string(2 * depth, ' ') << head << ":\n";
    emit(os, below, depth + 1);
  }
}

}  // namespace

std::string megatron_scenario_text(const MegatronImport& in, const MegatronCluster& cluster, const std::string& name,
                                   const std::string& origin) {
  const int nodes = cluster.nodes > 0 ? cluster.nodes : in.nodes.value_or(0);
  const int per_node = cluster.gpus_per_node > 0 ? cluster.gpus_per_node : in.gpus_per_node.value_or(0);
  if (cluster.preset.empty() == cluster.device.empty()) {
    throw InputError(
        "import-megatron: give the cluster as --preset NAME (dtsim collectives --help lists them) or "
        "--device NAME (dtsim devices), one of the two");
  }
  if (nodes <= 0)
    throw InputError("import-megatron: the node count is not known: give --nodes N (or torchrun's --nnodes)");
  if (per_node <= 0 && cluster.preset.empty()) {
    throw InputError(
        "import-megatron: the GPUs a node are not known: give --gpus-per-node N (or torchrun's "
        "--nproc-per-node)");
  }
  std::vector<std::pair<std::string, std::string>> keys;
  keys.emplace_back("name", name);
  std::vector<std::pair<std::string, std::string>> cluster_keys;
  if (!cluster.preset.empty()) cluster_keys.emplace_back("cluster.preset", cluster.preset);
  if (!cluster.device.empty()) cluster_keys.emplace_back("cluster.device", cluster.device);
  cluster_keys.emplace_back("cluster.nodes", std::to_string(nodes));
  if (per_node > 0) cluster_keys.emplace_back("cluster.devices_per_node", std::to_string(per_node));
  bool placed = false;
  for (const auto& kv : in.keys) {
    if (!placed && kv.first.rfind("strategy.", 0) == 0) {
      keys.insert(keys.end(), cluster_keys.begin(), cluster_keys.end());
      placed = true;
    }
    keys.push_back(kv);
  }
  keys.emplace_back("framework.preset", "megatron_core");
  keys.emplace_back("run.iterations", "1");
  keys.emplace_back("run.warmup", "0");
  keys.emplace_back("run.engine", "analytical");
  std::vector<std::pair<std::vector<std::string>, std::string>> paths;
  for (const auto& [key, value] : keys) {
    std::vector<std::string> segments;
    std::stringstream ss(key);
    for (std::string s; std::getline(ss, s, '.');) segments.push_back(s);
    paths.emplace_back(std::move(segments), value);
  }
  std::ostringstream os;
  os << "# Written by dtsim import-megatron from " << origin
     << ": Megatron-LM's arguments, each mapped to the scenario key it sets\n"
        "# (core/scenario/megatron_args.hpp); the cluster from the command line; what the arguments leave to\n"
        "# Megatron-Core's defaults, the megatron_core framework preset. Run: dtsim run THIS_FILE (--engine simgrid "
        "for\n"
        "# the flow engine).\n";
  for (const std::string& m : in.mapped) os << "#   " << m << "\n";
  os << fmt::format("#   cluster: {} {}, {} node(s){}\n", cluster.preset.empty() ? "device" : "preset",
                    cluster.preset.empty() ? cluster.device : cluster.preset, nodes,
                    per_node > 0 ? fmt::format(" of {} GPUs", per_node) : "");
  if (!in.not_read.empty()) {
    std::string line = "# Not read (no effect on a step's time in dtsim):";
    for (const std::string& n : in.not_read) {
      if (line.size() + n.size() + 1 > 116) {
        os << line << "\n";
        line = "#  ";
      }
      line += " " + n;
    }
    os << line << "\n";
  }
  emit(os, paths, 0);
  return os.str();
}

}  // namespace dtsim
