// Amdahl and Gustafson fits by least squares with Eigen, and the per-point scaling figures.
#include "sim/sweep/scaling_fit.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "core/base/error.hpp"

namespace dtsim::sweep {
namespace {

// y = p x through the origin: the one-column least-squares problem, solved with a QR.
double fit_through_origin(const std::vector<double>& x, const std::vector<double>& y) {
  Eigen::MatrixXd a(static_cast<Eigen::Index>(x.size()), 1);
  Eigen::VectorXd b(static_cast<Eigen::Index>(y.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    a(static_cast<Eigen::Index>(i), 0) = x[i];
    b(static_cast<Eigen::Index>(i)) = y[i];
  }
  if (a.norm() == 0) return 0;
  return a.colPivHouseholderQr().solve(b)(0);
}

template <typename Law>
void score(LawFit& fit, const std::vector<double>& workers, const std::vector<double>& speedup, Law law) {
  double mean = 0;
  for (double s : speedup) mean += s / static_cast<double>(speedup.size());
  double ss_res = 0, ss_tot = 0;
  fit.residuals.clear();
  for (size_t i = 0; i < workers.size(); ++i) {
    const double r = speedup[i] - law(fit.p, workers[i]);
    fit.residuals.push_back(r);
    ss_res += r * r;
    ss_tot += (speedup[i] - mean) * (speedup[i] - mean);
  }
  fit.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : (ss_res == 0 ? 1.0 : 0.0);
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

}  // namespace

double amdahl_speedup(double p, double n) { return 1.0 / ((1 - p) + p / n); }
double gustafson_speedup(double p, double n) { return (1 - p) + p * n; }

LawFit fit_amdahl(const std::vector<double>& workers, const std::vector<double>& speedup) {
  std::vector<double> x, y;
  for (size_t i = 0; i < workers.size(); ++i) {
    x.push_back(1 / workers[i] - 1);
    y.push_back(1 / speedup[i] - 1);
  }
  LawFit fit;
  fit.p = fit_through_origin(x, y);
  score(fit, workers, speedup, amdahl_speedup);
  return fit;
}

LawFit fit_gustafson(const std::vector<double>& workers, const std::vector<double>& speedup) {
  std::vector<double> x, y;
  for (size_t i = 0; i < workers.size(); ++i) {
    x.push_back(workers[i] - 1);
    y.push_back(speedup[i] - 1);
  }
  LawFit fit;
  fit.p = fit_through_origin(x, y);
  score(fit, workers, speedup, gustafson_speedup);
  return fit;
}

std::string_view scaling_mode_name(ScalingMode m) { return m == ScalingMode::Strong ? "strong" : "weak"; }

std::optional<double> ScalingReport::amdahl_max_speedup() const {
  if (!amdahl || amdahl->p >= 1) return std::nullopt;
  return 1 / (1 - amdahl->p);
}

ScalingReport analyze_scaling(std::vector<ScalingPoint> points, double efficiency_threshold, ScalingMode mode) {
  if (points.empty()) throw InputError("scaling analysis: no points");
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.workers < b.workers; });
  for (size_t i = 1; i < points.size(); ++i) {
    if (points[i].workers == points[i - 1].workers) {
      throw InputError(
          fmt::format("scaling analysis: two points have {} workers; sweep a key that changes the "
                      "worker count",
                      points[i].workers));
    }
  }
  ScalingReport r;
  r.efficiency_threshold = efficiency_threshold;
  const double n0 = points.front().workers;
  const double x0 = points.front().throughput_samples_per_s;
  std::vector<double> workers, speedup;
  for (auto& p : points) {
    const double n = p.workers;
    p.speedup = x0 > 0 ? p.throughput_samples_per_s / x0 * n0 : 0;
    p.efficiency = p.speedup / n;
    p.karp_flatt = p.workers > 1 && p.speedup > 0 ? std::optional((1 / p.speedup - 1 / n) / (1 - 1 / n)) : std::nullopt;
    if (!r.efficiency_below_threshold_at && p.efficiency < efficiency_threshold)
      r.efficiency_below_threshold_at = p.workers;
    workers.push_back(n);
    speedup.push_back(p.speedup);
  }
  r.points = std::move(points);
  if (mode == ScalingMode::Strong) r.amdahl = fit_amdahl(workers, speedup);
  r.gustafson = fit_gustafson(workers, speedup);
  return r;
}

nlohmann::json scaling_json(const ScalingReport& r, const std::string& scenario, const std::string& mode,
                            const std::string& param) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : r.points) {
    points.push_back({{"workers", p.workers},
                      {"iteration_time_s", p.iteration_time_s},
                      {"throughput_samples_per_s", p.throughput_samples_per_s},
                      {"speedup", p.speedup},
                      {"efficiency", p.efficiency},
                      {"karp_flatt", optional_json(p.karp_flatt)}});
  }
  nlohmann::json amdahl;  // null: weak scaling, which Amdahl's fixed-size law does not describe
  if (r.amdahl) {
    amdahl = {{"p", r.amdahl->p},
              {"max_speedup", optional_json(r.amdahl_max_speedup())},
              {"r2", r.amdahl->r2},
              {"residuals", r.amdahl->residuals}};
  }
  return {{"schema_version", 2},
          {"scenario", scenario},
          {"mode", mode},
          {"param", param},
          {"efficiency_threshold", r.efficiency_threshold},
          {"points", points},
          {"amdahl", amdahl},
          {"gustafson", {{"p", r.gustafson.p}, {"r2", r.gustafson.r2}, {"residuals", r.gustafson.residuals}}},
          {"efficiency_below_threshold_at",
           r.efficiency_below_threshold_at ? nlohmann::json(*r.efficiency_below_threshold_at) : nlohmann::json()}};
}

}  // namespace dtsim::sweep
