// metrics.json as the viewer reads it (docs/outputs.md, schema_version 2): the headline numbers,
// the per-rank breakdown and the per-job list, plus the metric deltas of the compare view.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dtsim::gui {

struct RankTime {
  int rank = 0;
  std::string role;
  int node = 0;
  double compute_s = 0, comm_s = 0, exposed_comm_s = 0, wait_s = 0, bytes_sent = 0;
};

struct JobMetrics {
  std::string scenario, job, engine, fidelity;
  int workers = 0, servers = 0, iterations = 0;
  double iteration_mean_s = 0, iteration_p50_s = 0, iteration_p95_s = 0, iteration_p99_s = 0;
  double throughput = 0;
  double compute_fraction = 0, comm_fraction = 0, exposed_comm_fraction = 0, wait_fraction = 0;
  double bytes_on_wire = 0, simulated_time_s = 0, wall_time_s = 0;
  std::vector<RankTime> ranks;
};

struct RunMetrics {
  JobMetrics top;                // the top-level object (the first job)
  std::vector<JobMetrics> jobs;  // every job; at least `top`
  // The job name of each rank (index: rank), empty where unknown.
  std::vector<std::string> job_of_rank() const;
};

JobMetrics job_metrics_from_json(const nlohmann::json& j);
RunMetrics run_metrics_from_json(const nlohmann::json& j);
// Throws ParseError if unreadable or not a metrics.json.
RunMetrics load_run_metrics(const std::string& path);

struct MetricDelta {
  std::string name, unit;
  double a = 0, b = 0;
  double delta() const { return b - a; }
  double relative() const;  // (b - a) / |a|, NaN when a is 0
};

std::vector<MetricDelta> metric_deltas(const JobMetrics& a, const JobMetrics& b);

}  // namespace dtsim::gui
