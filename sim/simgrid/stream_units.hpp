// How a FIFO stream's ops are issued to SimGrid: consecutive compute ops that nothing outside
// the run waits on are fused into one activity (SimGrid sees only the moments where ranks
// interact); every other op is issued alone. A fused run's per-op times are recovered from the
// op durations, so the records are the same as without fusion (tests prove it).
#pragma once

#include <vector>

#include "core/plan/plan.hpp"

namespace dtsim::sg {

struct StreamUnit {
  std::vector<int> ops;  // op ids in issue order; more than one only for a fused compute run
};

// Units of `stream` (Compute or Comm) of a rank's program. With fuse = false every op is alone; with
// composites_alone each composite op is too (under contention a composite runs at a pstate of its own).
std::vector<StreamUnit> stream_units(const RankProgram& rank, Stream stream, bool fuse, bool composites_alone = false);

}  // namespace dtsim::sg
