// A small GPT-style hybrid job the hybrid tests load: 8 blocks, hidden 512, 8 heads, 256 tokens,
// bf16 with Adam, on 2 nodes of 4 A100s; tests set the layout with --set-style overrides.
#pragma once

#include <string>
#include <vector>

#include "core/scenario/loader.hpp"

namespace dtsim::test {

inline constexpr const char* kHybridJob = R"(name: h
model:
  name: transformer
  dtype: bf16
  grad_dtype: bf16
  optimizer: adam
  transformer: {layers: 8, hidden: 512, heads: 8, seq_len: 256, vocab: 1024}
cluster:
  nodes: 2
  devices_per_node: 4
  device: a100_80gb
strategy:
  kind: hybrid
run:
  iterations: 2
  warmup: 1
  engine: analytical
)";

inline Scenario hybrid_job(const std::vector<std::string>& overrides) {
  return load_scenario_text(kHybridJob, "hybrid.yaml", overrides);
}

}  // namespace dtsim::test
