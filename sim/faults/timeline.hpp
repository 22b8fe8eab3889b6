// The training timeline of one job under failures, simulated one trial at a time: work in
// checkpoint cycles (interval of useful work, then a checkpoint of cost C), failures from an
// exponential process (seeded) or a trace, and recovery by restart (detection, reload, lost work
// recomputed) or elastic continuation (detection, then fewer workers carry on).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/faults/faults.hpp"

namespace dtsim::faults {

// How fast the job trains with a given number of workers.
struct JobRate {
  double iteration_s = 0;
  double samples_per_s = 0;
};

struct TimelineConfig {
  double horizon_s = 0;
  double checkpoint_cost_s = 0;
  double interval_s = 0;        // useful work between checkpoints; 0 with interval_iterations 0 = none
  int interval_iterations = 0;  // when > 0, the interval is this many iterations at the current rate
  double detection_s = 0;
  double restart_s = 0;
  Recovery recovery = Recovery::Restart;
  double unit_mtbf_s = 0;     // per device or node; 0 = no random failures
  std::vector<double> trace;  // failure times of the job (sorted), replacing unit_mtbf_s when set
  int units = 1;              // devices or nodes that can fail
  int workers = 1;
  int workers_per_unit = 1;  // workers lost with one unit (elastic)
  std::function<JobRate(int workers)> rate;
};

// Time by cause over one trial (or the mean of several); they add up to the horizon.
struct TimelineResult {
  double useful_samples = 0;
  double failures = 0;
  double useful_s = 0, checkpoint_s = 0, lost_work_s = 0, detection_s = 0, restart_s = 0, idle_s = 0;
  double workers_at_end = 0;
  double goodput(double horizon_s) const { return useful_samples / horizon_s; }
};

TimelineResult simulate_timeline(const TimelineConfig& cfg, std::uint64_t seed);

// The mean over trials 0..trials-1, each seeded from (seed, stream, trial).
TimelineResult simulate_trials(const TimelineConfig& cfg, std::uint64_t seed, std::uint64_t stream, int trials);

}  // namespace dtsim::faults
