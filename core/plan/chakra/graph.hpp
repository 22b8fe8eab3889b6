// The order a Chakra trace's nodes run in: their dependencies (data and control deps alike) as
// positions in the trace, and an order that puts every node after them, the file's own where it
// already does. Node ids are anything unique; ops are numbered in this order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/chakra/et_trace.hpp"

namespace dtsim {

struct ChakraGraph {
  // Node i (its position in the trace) waits for the positions dep[offset[i]] .. dep[offset[i + 1] - 1].
  std::vector<int> offset;
  std::vector<int> dep;
  std::vector<int> order;  // positions, each after its deps; ties in file order

  const int* deps_begin(int i) const { return dep.data() + offset[static_cast<size_t>(i)]; }
  const int* deps_end(int i) const { return dep.data() + offset[static_cast<size_t>(i) + 1]; }
};

// Calls `fail` (which must throw) with one line for a node id given twice, a dependency on a node the
// trace does not hold, or a cycle (naming its node ids in order).
ChakraGraph order_nodes(const std::vector<EtNode>& nodes, const std::function<void(const std::string&)>& fail);

}  // namespace dtsim
