// A sweep folder as the scaling view reads it: scaling.json (points, Amdahl and Gustafson fits)
// and, when present, results.json (each point's full metrics). The fitted laws are evaluated
// here: Amdahl S(N) = 1/((1-p) + p/N), Gustafson S(N) = (1-p) + pN.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gui/model/run_metrics.hpp"

namespace dtsim::gui {

struct ScalingPoint {
  int workers = 0;
  double iteration_time_s = 0, throughput = 0, speedup = 0, efficiency = 0;
  std::optional<double> karp_flatt;
};

struct LawFit {
  double p = 0, r2 = 0;
  double max_speedup = 0;  // Amdahl only: 1/(1-p)
  std::vector<double> residuals;
};

struct ScalingData {
  std::string scenario, mode = "strong", param;
  double efficiency_threshold = 0.8;
  std::vector<ScalingPoint> points;
  std::optional<LawFit> amdahl, gustafson;
  std::optional<int> efficiency_below_threshold_at;
  std::vector<std::pair<int, JobMetrics>> results;  // results.json: workers and metrics per point
};

double amdahl_speedup(double p, double n);
double gustafson_speedup(double p, double n);

// Throws ParseError on a malformed file.
ScalingData parse_scaling(const std::string& scaling_json_text);
void attach_results(ScalingData& data, const std::string& results_json_text);
// A folder with scaling.json (and optionally results.json).
ScalingData load_sweep(const std::string& folder);

}  // namespace dtsim::gui
