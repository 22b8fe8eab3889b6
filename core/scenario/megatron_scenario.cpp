// The scenario's YAML from Megatron-LM's arguments (megatron_scenario.hpp).
#include "core/scenario/megatron_scenario.hpp"

#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/base/error.hpp"

namespace dtsim {

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
  // The keys as nested maps, their sections in a scenario's usual order (yaml-cpp keeps a map's order and quotes
  // what needs it).
  YAML::Node root;
  root["name"] = name;
  for (const char* section : {"model", "cluster", "strategy", "framework", "run"}) {
    root[section] = YAML::Node(YAML::NodeType::Map);
  }
  const auto put = [&root](const std::string& key, const std::string& value) {
    std::vector<std::string> path;
    std::stringstream ss(key);
    for (std::string s; std::getline(ss, s, '.');) path.push_back(s);
    YAML::Node node = root;
    for (size_t i = 0; i + 1 < path.size(); ++i) node.reset(node[path[i]]);
    node[path.back()] = value;
  };
  if (!cluster.preset.empty()) put("cluster.preset", cluster.preset);
  if (!cluster.device.empty()) put("cluster.device", cluster.device);
  put("cluster.nodes", std::to_string(nodes));
  if (per_node > 0) put("cluster.devices_per_node", std::to_string(per_node));
  for (const auto& [key, value] : in.keys) put(key, value);
  put("framework.preset", "megatron_core");
  put("run.iterations", "1");
  put("run.warmup", "0");
  put("run.engine", "analytical");
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
  YAML::Emitter yaml;
  yaml << root;
  os << yaml.c_str() << "\n";
  return os.str();
}

}  // namespace dtsim
