// The compute-bound ring AllReduce job that the backup-worker and gossip tests of both engines use:
// 4 MB of fp32 gradients, 2 GFLOP per sample, one V100 per node, 8 nodes.
#pragma once

#include <string>
#include <vector>

#include "core/scenario/loader.hpp"

namespace dtsim::test {

inline const char* const kBackupRing = R"(name: backup
model:
  name: synthetic
  synthetic: {params: 1e6, flops_per_sample: 2GFLOP, layers: 4}
  batch_per_worker: 32
cluster:
  nodes: 8
  devices_per_node: 1
  device: v100
  nic: {rate: 100Gbps, latency: 5us}
run: {iterations: 12, warmup: 2}
)";

inline Scenario backup_ring(const std::vector<std::string>& sets) {
  return load_scenario_text(kBackupRing, "backup.yaml", sets);
}

}  // namespace dtsim::test
