// The scenario a Megatron-LM launch describes, written as YAML (`dtsim import-megatron`): the keys its arguments set
// (megatron_args.hpp), the cluster from the command line, the megatron_core framework preset for the rest, and a
// header saying where every key came from.
#pragma once

#include <string>

#include "core/scenario/megatron_args.hpp"

namespace dtsim {

// The cluster the job runs on, from the command line: a preset (cluster.preset) or a device, and the counts
// (each, when set, wins over torchrun's).
struct MegatronCluster {
  std::string preset;
  std::string device;
  int nodes = 0;
  int gpus_per_node = 0;
};

// The scenario's YAML: a header saying where every key came from, then the keys. Throws InputError when the
// cluster is not known (no preset or device, or no node counts); the layout's fit to the cluster is the scenario
// loader's to check.
std::string megatron_scenario_text(const MegatronImport& in, const MegatronCluster& cluster, const std::string& name,
                                   const std::string& origin);

}  // namespace dtsim
