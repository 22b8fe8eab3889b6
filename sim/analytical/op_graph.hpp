// The order a rank's ops run in: each op waits for its deps and, on a FIFO stream (compute, comm),
// for the op issued before it on that stream; posted ops wait only for their deps.
#pragma once

#include <vector>

#include "core/plan/plan.hpp"

namespace dtsim::analytical {

struct OpGraph {
  std::vector<std::vector<int>> succs;  // by op: the ops that wait for it
  std::vector<int> preds;               // by op: how many it waits for
};

// Throws RuntimeError when an op depends on a later one.
OpGraph build_op_graph(const RankProgram& r);

}  // namespace dtsim::analytical
