// Fitting calibration parameters to measurements with Eigen least squares: time = fixed +
// x * per_unit (latency and inverse bandwidth of a link; overhead and inverse rate of compute),
// piecewise over ranges of x with the breaks chosen from the data, and the residuals of a fit.
#pragma once

#include <span>
#include <vector>

#include "core/calibration/calibration.hpp"

namespace dtsim::calib {

// One segment over `samples`: least squares of the relative error (each row divided by its
// measured time, so 1 us and 1 s count alike), with fixed >= 0 and per_unit > 0 (a negative
// estimate is clamped and the other parameter refitted). min_x is set to `min_x`.
Segment fit_segment(std::span<const Sample> samples, double min_x);

struct PiecewiseOptions {
  int max_segments = 3;
  int min_points = 3;  // per segment
};

// The piecewise fit over samples (any order): for each number of segments up to max_segments,
// the breaks minimising the relative squared error (dynamic programming over the sorted samples);
// then the count with the lowest BIC (n ln(RSS/n) + 3k ln n), so that noise does not buy extra
// segments, among the counts whose last segment grows with x when there are such. A break lies at the geometric mean of
// the samples either side of it. Throws InputError for fewer than 2 samples or a non-positive time.
PiecewiseLinear fit_piecewise(std::vector<Sample> samples, const PiecewiseOptions& options = {});

// Relative residuals (fit - measured) / measured over the samples.
Residuals residuals(const PiecewiseLinear& fit, std::span<const Sample> samples);

// fit_piecewise with its samples and residuals.
FittedCurve fit_curve(std::vector<Sample> samples, const PiecewiseOptions& options = {});

// Compute efficiency of an op of `flops` against the curve's asymptotic rate (the largest
// 1 / per_unit): (flops * per_unit_best) / time(flops), in (0, 1].
double efficiency(const PiecewiseLinear& compute, double flops);

}  // namespace dtsim::calib
