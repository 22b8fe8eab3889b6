// `dtsim tune --devices N` and Python's tune(devices=N): the scenario's one hybrid job searched on N devices (whole
// nodes of the cluster's devices_per_node) instead of its own. The scenario's layout may not suit N devices, so the
// job starts from the first layout of the search's order that does (for_each_layout under the search's limits, at
// the job's global batch); the search then ranks every layout from there.
#pragma once

#include <string>
#include <vector>

#include "core/scenario/scenario.hpp"
#include "models/parallel/layout_space.hpp"

namespace dtsim::tune {

struct DeviceTarget {
  std::vector<std::string> sets;   // cluster.nodes for N devices: what the best layout's `dtsim run` command repeats
  std::vector<std::string> start;  // the first layout that suits N devices, as --set overrides of job 0
};

// None (both lists empty) for `devices` 0 or the job's own device count. Throws InputError, naming --devices, for
// a count that is not whole nodes, a scenario that is not one hybrid job, or no layout within `limits` that takes
// the job's global batch on N devices.
DeviceTarget target_devices(const Scenario& given, const LayoutLimits& limits, int devices);

}  // namespace dtsim::tune
