// Unions of time intervals, as the metrics and the waiting-by-cause attribution use them.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace dtsim {

using Interval = std::pair<double, double>;

// Sorts and merges overlapping intervals in place. A rank's records mostly come in time order: an input sorted by
// start is not sorted again (the order of intervals with one start does not change their union).
inline void merge_intervals(std::vector<Interval>& v) {
  const auto by_start = [](const Interval& a, const Interval& b) { return a.first < b.first; };
  if (!std::is_sorted(v.begin(), v.end(), by_start)) std::sort(v.begin(), v.end());
  size_t n = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const Interval iv = v[i];
    if (n > 0 && iv.first <= v[n - 1].second) {
      v[n - 1].second = std::max(v[n - 1].second, iv.second);
    } else {
      v[n++] = iv;
    }
  }
  v.resize(n);
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
