// The smallest job the core tests load: one synthetic layer of 1e6 parameters on 4 A100 nodes,
// everything else at its default (tests add keys with --set-style overrides or appended text).
#pragma once

namespace dtsim::test {

inline constexpr const char* kTinyJob = R"(name: t
model:
  name: synthetic
  synthetic: {params: 1e6, flops_per_sample: 1GFLOP, layers: 1}
cluster:
  nodes: 4
  device: a100_40gb
)";

}  // namespace dtsim::test
