// A rank's op dependency graph for the analytical engine: an op waits for its deps and, on the
// Compute and Comm streams, for the previous op of its stream (FIFO); each edge counted once. Flat:
// one array of successors for the whole rank, not a vector per op.
#pragma once

#include <span>
#include <vector>

#include "core/plan/plan.hpp"

namespace dtsim::analytical {

struct OpGraph {
  std::vector<int> preds;  // by op: how many it waits for
  std::vector<int> first;  // by op: where its successors start in `succ` (first[op + 1] ends them)
  std::vector<int> succ;   // every op's successors, in increasing op order, op by op
  // The ops that wait for `op`.
  std::span<const int> succs(int op) const {
    const auto i = static_cast<size_t>(op);
    return {succ.data() + first[i], static_cast<size_t>(first[i + 1] - first[i])};
  }
};

// Throws RuntimeError when an op depends on a later one.
OpGraph build_op_graph(const RankProgram& r);

}  // namespace dtsim::analytical
