// Fusion of compute runs on a FIFO stream.
#include "sim/simgrid/stream_units.hpp"

#include <algorithm>

namespace dtsim::sg {

std::vector<StreamUnit> stream_units(const RankProgram& rank, Stream stream, bool fuse, bool composites_alone) {
  // dependents[i]: how many ops depend on op i (a run may only pass through ops whose sole
  // dependent is the next op of the run).
  std::vector<int> dependents(rank.ops.size(), 0);
  for (const Op& op : rank.ops) {
    for (int d : op.deps) ++dependents[d];
  }
  std::vector<StreamUnit> units;
  bool open = false;  // the last unit is a compute run that may grow
  for (const Op& op : rank.ops) {
    if (op.stream != stream) continue;
    const auto* c = std::get_if<ComputeOp>(&op.body);
    const bool alone = composites_alone && c && c->composite >= 0;
    const bool compute = is_compute(op.body) && !alone;
    if (fuse && compute && open) {
      const std::vector<int>& run = units.back().ops;
      const int prev = run.back();
      const bool only_next_waits = dependents[prev] == 1 && op.deps.size() == 1 && op.deps[0] == prev;
      if (only_next_waits) {
        units.back().ops.push_back(op.id);
        continue;
      }
    }
    units.push_back(StreamUnit{{op.id}});
    open = compute;
  }
  return units;
}

}  // namespace dtsim::sg
