// metrics.json as the viewer reads it (docs/outputs.md, schema_version 2): the headline numbers,
// the per-rank breakdown and the per-job list, a hybrid run's pipeline bubble and memory per
// stage (docs/parallelism.md), plus the metric deltas of the compare view.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dtsim::gui {

struct RankTime {
  int rank = 0;
  std::string role;
  int node = 0;
  double compute_s = 0, comm_s = 0, exposed_comm_s = 0, wait_s = 0, bytes_sent = 0;
  int stage = -1;                // a hybrid run's pipeline stage, -1 if none
  double memory_peak_bytes = 0;  // 0 if not given
};

// One pipeline stage's memory per rank, by category (metrics.json memory.per_stage).
struct StageMemory {
  int stage = 0;
  double parameters_bytes = 0, gradients_bytes = 0, optimizer_bytes = 0, activations_bytes = 0, communication_bytes = 0,
         total_bytes = 0;
  int micro_batches_in_flight = 0;
};

struct MemoryMetrics {
  double device_bytes = 0, peak_bytes = 0;
  bool fits = true;
  std::vector<StageMemory> stages;
  // The stage with the largest total, or null when there are none.
  const StageMemory* peak_stage() const;
  // The bytes the fullest rank needs: peak_bytes, or the largest stage total if larger.
  double needed_bytes() const;
  // False when metrics.json says it does not fit or a rank needs more than the device has.
  bool fits_device() const;
};

struct JobMetrics {
  std::string scenario, job, engine, fidelity;
  int workers = 0, servers = 0, iterations = 0;
  double iteration_mean_s = 0, iteration_p50_s = 0, iteration_p95_s = 0, iteration_p99_s = 0;
  double throughput = 0;
  double compute_fraction = 0, comm_fraction = 0, exposed_comm_fraction = 0, wait_fraction = 0;
  double bytes_on_wire = 0, simulated_time_s = 0, wall_time_s = 0;
  std::optional<double> bubble_fraction;  // hybrid runs only
  // Large-model units (null in metrics.json where the job has none: tokens for a CNN, FLOPs for Chakra traces).
  std::optional<double> tokens_per_s_per_device, mfu, hfu;
  double pipeline_bubble_s = 0;         // wait_by_cause_s.pipeline_bubble: waiting per iteration
  std::optional<MemoryMetrics> memory;  // hybrid runs only
  std::vector<RankTime> ranks;
};

struct RunMetrics {
  JobMetrics top;                // the top-level object (the first job)
  std::vector<JobMetrics> jobs;  // every job; at least `top`
  // The job name of each rank (index: rank), empty where unknown.
  std::vector<std::string> job_of_rank() const;
  // Fields of the wrong type, in words ("metrics.json workers: is string, expected a number"); they
  // read as 0 or empty. Shown in the status bar, and exit code 2 in --screenshot mode.
  std::vector<std::string> problems;
};

// The ranks of a pipeline stage from per_rank, compactly: "rank 4", "ranks 0-3", "ranks 0, 2, 5";
// empty when per_rank does not give stages.
std::string stage_ranks_label(const JobMetrics& job, int stage);
// The memory verdict in words: "peak 630 MB of 80 GB (0.8 %): fits", or "does not fit (stage 0
// needs 120 GB per rank, the device has 80 GB; 2 of 4 stages over)".
std::string memory_verdict(const MemoryMetrics& memory);

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
