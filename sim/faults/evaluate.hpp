// Faults at the level of a run: a job's timeline configuration from its scenario and engine
// metrics, the report written under `faults` in metrics.json, and the scan of checkpoint
// intervals behind `dtsim checkpoint`.
#pragma once

#include <vector>

#include "core/run/metrics.hpp"
#include "core/scenario/scenario.hpp"
#include "sim/faults/timeline.hpp"

namespace dtsim::faults {

// The timeline of job `job` at the rate its engine run measured. Elastic continuation
// re-evaluates the iteration time for fewer workers with the analytical engine (its fast path
// where it applies), scaled so that the full job matches the engine's own result.
TimelineConfig timeline_config(const Scenario& s, size_t job, const Metrics& m);

FaultReport evaluate_faults(const Scenario& s, size_t job, const Metrics& m);

// Fills Metrics::faults of every job whose faults are enabled.
void add_fault_reports(const Scenario& s, std::vector<Metrics>& jobs);

struct IntervalPoint {
  double interval_s = 0;
  double goodput = 0;
  TimelineResult mean;
};

struct CheckpointScan {
  double checkpoint_cost_s = 0;
  double job_mtbf_s = 0;  // per-unit MTBF / units, or horizon / trace failures
  double young_daly_s = 0;
  double throughput = 0;
  double iteration_s = 0;
  std::vector<IntervalPoint> curve;
  double best_interval_s = 0;  // the minimum of a waste fit a/tau + b tau + c near the best scanned point
  double best_goodput = 0;     // simulated at best_interval_s
};

// Scans `points` intervals geometrically around Young/Daly (from /8 to x8) with `trials` trials each
// (the same failure draws for every interval).
CheckpointScan scan_checkpoint_intervals(const TimelineConfig& base, std::uint64_t seed, int trials, int points);
// The failure and checkpoint events that scan steps through at most (about 70 ns each here).
double scan_events(const TimelineConfig& base, int trials, int points);

}  // namespace dtsim::faults
