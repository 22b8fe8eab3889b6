// Least-squares fits of piecewise time = fixed + x * per_unit, with Eigen.
#include "calibrate/fit.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim::calib {
namespace {

constexpr double kMinPerUnit = 1e-18;  // a segment where time does not grow with x

double relative_sse(const Segment& s, std::span<const Sample> samples) {
  double sse = 0;
  for (const Sample& p : samples) {
    const double r = (s.fixed + p.x * s.per_unit - p.seconds) / p.seconds;
    sse += r * r;
  }
  return sse;
}

}  // namespace

Segment fit_segment(std::span<const Sample> samples, double min_x) {
  const auto n = static_cast<Eigen::Index>(samples.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Sample& p = samples[static_cast<size_t>(i)];
    a(i, 0) = 1.0 / p.seconds;
    a(i, 1) = p.x / p.seconds;
  }
  Segment s{min_x, 0, 0};
  bool solved = false;
  if (n >= 2) {
    const Eigen::Vector2d v = a.colPivHouseholderQr().solve(b);
    s.fixed = v(0);
    s.per_unit = v(1);
    solved = std::isfinite(s.fixed) && std::isfinite(s.per_unit) && s.fixed >= 0 && s.per_unit > 0;
  }
  if (!solved && !(s.per_unit > 0 && std::isfinite(s.per_unit))) {
    // No growth with x: a constant, the relative least-squares one (sum 1/t / sum 1/t^2).
    s.per_unit = kMinPerUnit;
    s.fixed = a.col(0).sum() / a.col(0).squaredNorm();
  } else if (!solved) {
    // A negative fixed part: through the origin instead.
    s.fixed = 0;
    s.per_unit = std::max(kMinPerUnit, a.col(1).sum() / a.col(1).squaredNorm());
  }
  return s;
}

PiecewiseLinear fit_piecewise(std::vector<Sample> samples, const PiecewiseOptions& options) {
  if (samples.size() < 2) throw InputError(fmt::format("a fit needs at least 2 samples (got {})", samples.size()));
  for (const Sample& p : samples) {
    if (!(p.seconds > 0) || !(p.x >= 0)) {
      throw InputError(
          fmt::format("a sample must have x >= 0 and a positive time (got x {} and {} s)", p.x, p.seconds));
    }
  }
  std::stable_sort(samples.begin(), samples.end(), [](const Sample& l, const Sample& r) { return l.x < r.x; });
  const int n = static_cast<int>(samples.size());
  const int min_points = std::max(2, options.min_points);
  const int most = std::max(1, std::min(options.max_segments, n / min_points));
  const std::span<const Sample> all(samples);
  // cost[i][j]: relative SSE of one segment over samples [i, j); breaks only between distinct x.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> cost(n + 1, std::vector<double>(n + 1, inf));
  for (int i = 0; i < n; ++i) {
    if (i > 0 && samples[i].x == samples[i - 1].x) continue;
    for (int j = i + min_points; j <= n; ++j) {
      if (j < n && samples[j].x == samples[j - 1].x) continue;
      cost[i][j] = relative_sse(fit_segment(all.subspan(i, j - i), 0), all.subspan(i, j - i));
    }
  }
  // best[k][j]: k segments over [0, j); from[k][j]: where the last one starts.
  std::vector<std::vector<double>> best(most + 1, std::vector<double>(n + 1, inf));
  std::vector<std::vector<int>> from(most + 1, std::vector<int>(n + 1, -1));
  best[0][0] = 0;
  for (int k = 1; k <= most; ++k) {
    for (int j = 1; j <= n; ++j) {
      for (int i = 0; i < j; ++i) {
        const double c = best[k - 1][i] + cost[i][j];
        if (c < best[k][j]) {
          best[k][j] = c;
          from[k][j] = i;
        }
      }
    }
  }
  // A count whose last segment does not grow (a noisy point or two among the largest sizes) is not
  // chosen while one whose last segment grows exists: the engines extrapolate from the last segment,
  // and a flat one is an infinite rate (calibrate/fit_checks.hpp refuses it).
  const auto last_grows = [&](int k) {
    const int i = from[k][n];
    return i >= 0 && fit_segment(all.subspan(i, n - i), 0).per_unit > kMinPerUnit;
  };
  bool any_grows = false;
  for (int k = 1; k <= most; ++k) any_grows = any_grows || (std::isfinite(best[k][n]) && last_grows(k));
  int chosen = 1;
  double best_bic = inf;
  for (int k = 1; k <= most; ++k) {
    if (!std::isfinite(best[k][n])) continue;
    if (any_grows && !last_grows(k)) continue;
    const double bic = n * std::log(best[k][n] / n + 1e-12) + 3.0 * k * std::log(n);
    if (bic < best_bic - 1e-9) {
      best_bic = bic;
      chosen = k;
    }
  }
  if (!std::isfinite(best[chosen][n])) {  // too few distinct x for min_points: one segment over all
    return PiecewiseLinear{{fit_segment(all, 0)}};
  }
  std::vector<int> starts;
  for (int k = chosen, j = n; k > 0; j = from[k][j], --k) starts.push_back(from[k][j]);
  std::reverse(starts.begin(), starts.end());
  PiecewiseLinear out;
  for (size_t s = 0; s < starts.size(); ++s) {
    const int i = starts[s];
    const int j = s + 1 < starts.size() ? starts[s + 1] : n;
    const double min_x = i == 0 ? 0.0 : std::sqrt(std::max(samples[i - 1].x, 1e-300) * samples[i].x);
    out.segments.push_back(fit_segment(all.subspan(i, j - i), min_x));
  }
  return out;
}

Residuals residuals(const PiecewiseLinear& fit, std::span<const Sample> samples) {
  Residuals r;
  double sum = 0;
  for (const Sample& p : samples) {
    const double rel = std::abs(fit.time(p.x) - p.seconds) / p.seconds;
    sum += rel * rel;
    r.max_relative = std::max(r.max_relative, rel);
    ++r.points;
  }
  r.rms_relative = r.points > 0 ? std::sqrt(sum / r.points) : 0.0;
  return r;
}

FittedCurve fit_curve(std::vector<Sample> samples, const PiecewiseOptions& options) {
  FittedCurve c;
  c.fit = fit_piecewise(samples, options);
  c.residuals = residuals(c.fit, samples);
  c.samples = std::move(samples);
  return c;
}

double efficiency(const PiecewiseLinear& compute, double flops) {
  double best = std::numeric_limits<double>::infinity();
  for (const Segment& s : compute.segments) best = std::min(best, s.per_unit);
  const double t = compute.time(flops);
  return t > 0 ? std::min(1.0, flops * best / t) : 0.0;
}

}  // namespace dtsim::calib
