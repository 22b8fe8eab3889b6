// Link parameters and sizes shared by the collective algorithm tests.
#pragma once

#include <vector>

#include "models/collectives/collective.hpp"

namespace dtsim::test {

constexpr double kMiB = 1024.0 * 1024.0;

const AlphaBeta kUniform{5e-6, 12.5e9, 5e-6, 12.5e9};
// NVLink-like inside a node, a NIC between nodes.
const AlphaBeta kFastIntra{1e-6, 300e9, 10e-6, 25e9};
// Inside a node: lower latency but less bandwidth, so the slowest class depends on the bytes.
const AlphaBeta kSlowIntra{1e-6, 10e9, 8e-6, 50e9};

inline std::vector<int> range(int from, int to) {
  std::vector<int> v;
  for (int i = from; i <= to; ++i) v.push_back(i);
  return v;
}

}  // namespace dtsim::test
