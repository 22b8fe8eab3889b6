// A rank's op dependency graph (op_graph.hpp).
#include "sim/analytical/op_graph.hpp"

#include <algorithm>

#include "core/base/error.hpp"

namespace dtsim::analytical {

OpGraph build_op_graph(const RankProgram& r) {
  OpGraph g;
  const size_t n = r.ops.size();
  g.succs.assign(n, {});
  g.preds.assign(n, 0);
  int last_on_stream[2] = {-1, -1};
  for (const Op& op : r.ops) {
    std::vector<int> preds = op.deps;
    if (op.stream != Stream::Posted) {
      int& last = last_on_stream[static_cast<int>(op.stream)];
      if (last >= 0) preds.push_back(last);
      last = op.id;
    }
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (int p : preds) {
      if (p < 0 || p >= op.id) throw RuntimeError("plan: an op depends on a later op");
      g.succs[p].push_back(op.id);
    }
    g.preds[op.id] = static_cast<int>(preds.size());
  }
  return g;
}

}  // namespace dtsim::analytical
