// A rank's op dependency graph (op_graph.hpp).
#include "sim/analytical/op_graph.hpp"

#include <algorithm>
#include <utility>

#include "core/base/error.hpp"

namespace dtsim::analytical {

OpGraph build_op_graph(const RankProgram& r) {
  OpGraph g;
  const size_t n = r.ops.size();
  g.preds.assign(n, 0);
  g.first.assign(n + 1, 0);
  std::vector<std::pair<int, int>> edges;  // (pred, op), op by op
  std::vector<int> preds;
  int last_on_stream[2] = {-1, -1};
  for (const Op& op : r.ops) {
    preds = op.deps;
    if (op.stream != Stream::Posted) {
      int& last = last_on_stream[static_cast<int>(op.stream)];
      if (last >= 0) preds.push_back(last);
      last = op.id;
    }
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (int p : preds) {
      if (p < 0 || p >= op.id) throw RuntimeError("plan: an op depends on a later op");
      edges.emplace_back(p, op.id);
      ++g.first[static_cast<size_t>(p) + 1];
    }
    g.preds[static_cast<size_t>(op.id)] = static_cast<int>(preds.size());
  }
  for (size_t p = 0; p < n; ++p) g.first[p + 1] += g.first[p];
  g.succ.resize(edges.size());
  std::vector<int> fill(g.first.begin(), g.first.end() - 1);
  for (const auto& [p, op] : edges) g.succ[static_cast<size_t>(fill[static_cast<size_t>(p)]++)] = op;
  return g;
}

}  // namespace dtsim::analytical
