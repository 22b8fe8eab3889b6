// Scaling analysis of a sweep: speedup, efficiency and the Karp-Flatt serial fraction per point,
// and least-squares fits (Eigen) of Amdahl's and Gustafson's laws.
//
// Speedup convention: relative to the point with the fewest workers N0, scaled so that point's
// speedup is N0 (as if measured against one worker): S(N) = X(N) / X(N0) * N0, with X the
// throughput in samples/s, for strong and weak scaling alike. Efficiency E = S / N.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dtsim::sweep {

struct ScalingPoint {
  int workers = 0;
  double iteration_time_s = 0;
  double throughput_samples_per_s = 0;
  double speedup = 0;
  double efficiency = 0;
  std::optional<double> karp_flatt;  // none at N = 1
};

// A one-parameter law fitted by least squares. Residuals are measured minus fitted speedup, per
// point; R^2 = 1 - SS_res / SS_tot, both in speedup.
struct LawFit {
  double p = 0;  // parallel fraction
  double r2 = 0;
  std::vector<double> residuals;
};

struct ScalingReport {
  std::vector<ScalingPoint> points;  // by workers, ascending
  LawFit amdahl;                     // 1/S = (1-p) + p/N, fitted linear in 1/N
  LawFit gustafson;                  // S = (1-p) + p N
  double efficiency_threshold = 0.8;
  std::optional<int> efficiency_below_threshold_at;  // fewest workers with E < threshold

  // 1/(1-p); none when p >= 1 (no limit).
  std::optional<double> amdahl_max_speedup() const;
};

double amdahl_speedup(double p, double n);
double gustafson_speedup(double p, double n);
// Least squares of y = p x through the origin with Eigen, for 1/S - 1 = p (1/N - 1) and S - 1 = p (N - 1).
LawFit fit_amdahl(const std::vector<double>& workers, const std::vector<double>& speedup);
LawFit fit_gustafson(const std::vector<double>& workers, const std::vector<double>& speedup);

// Throws InputError if fewer than one point or the worker counts repeat.
ScalingReport analyze_scaling(std::vector<ScalingPoint> points, double efficiency_threshold);

// scaling.json (schema_version 1; docs/sweeps.md).
nlohmann::json scaling_json(const ScalingReport& r, const std::string& scenario, const std::string& mode,
                            const std::string& param);

}  // namespace dtsim::sweep
