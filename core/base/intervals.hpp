// Unions of time intervals, as the metrics and the waiting-by-cause attribution use them.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace dtsim {

using Interval = std::pair<double, double>;

// Sorts and merges overlapping intervals in place.
inline void merge_intervals(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (const auto& iv : v) {
    if (!out.empty() && iv.first <= out.back().second) {
      out.back().second = std::max(out.back().second, iv.second);
    } else {
      out.push_back(iv);
    }
  }
  v.swap(out);
}

// Total length of merged intervals.
inline double intervals_length(const std::vector<Interval>& merged) {
  double s = 0;
  for (const auto& [a, b] : merged) s += b - a;
  return s;
}

// How much of [a, b] the merged intervals cover.
inline double intervals_overlap(const std::vector<Interval>& merged, double a, double b) {
  double s = 0;
  for (const auto& [lo, hi] : merged) s += std::max(0.0, std::min(b, hi) - std::max(a, lo));
  return s;
}

}  // namespace dtsim
