// Scaling analysis of a sweep: speedup, efficiency and the Karp-Flatt serial fraction per point,
// and least-squares fits (Eigen) of Amdahl's law (strong scaling only: it bounds the speedup of a
// fixed problem, which a weak-scaling sweep does not keep) and Gustafson's.
//
// Speedup convention: relative to the point with the fewest workers N0, scaled so that point's
// speedup is N0 (as if measured against one worker): S(N) = X(N) / X(N0) * N0, with X the
// throughput in samples/s, for strong and weak scaling alike. Efficiency E = S / N.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dtsim::sweep {

// strong: the global batch stays the baseline's (model.batch_per_worker is adjusted per point);
// weak: the per-worker batch stays the scenario's.
enum class ScalingMode { Strong, Weak };
std::string_view scaling_mode_name(ScalingMode m);

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
  std::optional<LawFit> amdahl;      // 1/S = (1-p) + p/N, fitted linear in 1/N; strong scaling only
  LawFit gustafson;                  // S = (1-p) + p N
  double efficiency_threshold = 0.8;
  std::optional<int> efficiency_below_threshold_at;  // fewest workers with E < threshold

  // 1/(1-p); none when p >= 1 (no limit) or without an Amdahl fit.
  std::optional<double> amdahl_max_speedup() const;
};

double amdahl_speedup(double p, double n);
double gustafson_speedup(double p, double n);
// Least squares of y = p x through the origin with Eigen, for 1/S - 1 = p (1/N - 1) and S - 1 = p (N - 1).
LawFit fit_amdahl(const std::vector<double>& workers, const std::vector<double>& speedup);
LawFit fit_gustafson(const std::vector<double>& workers, const std::vector<double>& speedup);

// Throws InputError if fewer than one point or the worker counts repeat. Amdahl's law is fitted to
// strong scaling only.
ScalingReport analyze_scaling(std::vector<ScalingPoint> points, double efficiency_threshold, ScalingMode mode);

// scaling.json (schema_version 2: "amdahl" null for weak scaling; docs/sweeps.md).
nlohmann::json scaling_json(const ScalingReport& r, const std::string& scenario, const std::string& mode,
                            const std::string& param);

}  // namespace dtsim::sweep
