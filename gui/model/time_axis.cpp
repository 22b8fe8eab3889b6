// Zoom, pan and fit of the time axis.
#include "gui/model/time_axis.hpp"

#include <algorithm>
#include <cmath>

namespace dtsim::gui {

void TimeAxis::zoom_at(double x, double factor) {
  if (!(factor > 0)) return;
  const double t = time_at(x);
  us_per_px_ = std::clamp(us_per_px_ / factor, kMinUsPerPx, kMaxUsPerPx);
  t0_ = t - x * us_per_px_;
}

void TimeAxis::fit(double t_begin, double t_end, int width_px, double margin) {
  const double span = std::max(t_end - t_begin, 1e-3);
  const double w = std::max(width_px, 1);
  us_per_px_ = std::clamp(span * (1 + 2 * margin) / w, kMinUsPerPx, kMaxUsPerPx);
  t0_ = t_begin - span * margin;
}

double nice_step(double min_step) {
  if (!(min_step > 0)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(min_step)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= min_step) return m * p;
  }
  return 10 * p;
}

}  // namespace dtsim::gui
