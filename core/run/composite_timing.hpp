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
  double duration = 0;  // the sum of its parts' costs, less what parts side by side (Composite::beside) share
  // Offsets from the composite's start, each list in order and disjoint; a comm interval overlaps a compute one
  // only where Composite::beside puts them side by side.
  std::vector<Interval> compute;
  std::vector<Interval> comm;
  std::vector<std::string_view> comm_kinds;  // by comm interval: its collective's group kind (metrics' comm_kind)
  std::vector<double> comm_exposed;          // by comm interval: its seconds under no compute interval
  double compute_s = 0;                      // lengths of the two lists
  double comm_s = 0;
  double exposed_comm_s = 0;  // the sum of comm_exposed
};

}  // namespace dtsim
