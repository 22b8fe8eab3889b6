// Where a Composite's time goes (core/plan/plan.hpp): its compute parts and its communication parts as
// intervals from the composite's start, so that metrics split a composite's record as they would split
// its parts' records. Engines that evaluate composites give one per Plan::composites entry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/intervals.hpp"

namespace dtsim {

struct CompositeTiming {
  double duration = 0;            // the sum of its parts' costs
  std::vector<Interval> compute;  // offsets from the composite's start, in order, disjoint
  std::vector<Interval> comm;
  std::vector<std::string_view> comm_kinds;  // by comm interval: its collective's group kind (metrics' comm_kind)
  double compute_s = 0;                      // lengths of the two lists
  double comm_s = 0;
};

}  // namespace dtsim
