// The median of a list of numbers (the mean of the middle two for an even count; 0 for none):
// what calibration keeps of repeated measurements, so that one slow repeat does not count.
#pragma once

#include <algorithm>
#include <vector>

namespace dtsim {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace dtsim
