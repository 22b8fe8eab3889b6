// The `faults.*` job keys: the failure process, checkpoints, recovery and the horizon.
#include <filesystem>

#include <fmt/format.h>

#include "core/scenario/fault_keys.hpp"
#include "core/scenario/validate.hpp"

namespace dtsim {
namespace {

using J = JobSpec;
using V = ScalarValue;

bool is_whole_number(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

// A value that is a number of iterations (a bare whole number) or a time (with a unit).
void iterations_or_time(const V& v, int& iterations, double& seconds) {
  iterations = 0;
  seconds = 0;
  if (is_whole_number(v.text())) {
    iterations = v.count(0);
    return;
  }
  try {
    seconds = v.quantity(Quantity::Time);
  } catch (const InputError&) {
    v.fail(fmt::format("'{}' is neither iterations nor a time (use e.g. 500, 30min or 2h)", v.text()));
  }
  if (seconds < 0) v.fail(fmt::format("must not be negative (got '{}')", v.text()));
}

}  // namespace

void add_fault_keys(KeyTable& keys) {
  keys.job("faults.mtbf", "time", "0s",
           "Mean time between failures of one device or one node (faults.scope); the job fails MTBF/units apart "
           "on average (exponential, seeded by run.seed). 0: no random failures.",
           [](J& j, const V& v) { j.faults.mtbf_s = v.quantity(Quantity::Time); });
  keys.job("faults.scope", "one of: device, node", "node",
           "What faults.mtbf is per: one device or one node of the job.", [](J& j, const V& v) {
             j.faults.scope = v.choice<FaultScope>({{"device", FaultScope::Device}, {"node", FaultScope::Node}});
           });
  keys.job("faults.trace", "path", "",
           "A file of failure times of the job (one per line, seconds or e.g. 3.5h), relative to the scenario file; "
           "replaces faults.mtbf.",
           [](J& j, const V& v) { j.faults.trace = v.text(); });
  keys.job("faults.checkpoint_interval", "iterations or time", "0",
           "Useful work between checkpoints: iterations (e.g. 500) or a time (e.g. 30min). 0: no checkpoints.",
           [](J& j, const V& v) {
             iterations_or_time(v, j.faults.checkpoint_interval_iterations, j.faults.checkpoint_interval_s);
           });
  keys.job("faults.checkpoint_size", "bytes", "0B",
           "Bytes written per checkpoint; 0: parameters x (4 B master weights + 4 B per optimizer state).",
           [](J& j, const V& v) { j.faults.checkpoint_size = v.quantity(Quantity::Bytes); });
  keys.job("faults.write_bandwidth", "rate", "10GB/s",
           "Aggregate bandwidth to checkpoint storage; a checkpoint costs size / write_bandwidth.",
           [](J& j, const V& v) { j.faults.write_bandwidth = v.positive(Quantity::Rate); });
  keys.job("faults.detection_time", "time", "30s", "Time from a failure until the job notices it.",
           [](J& j, const V& v) { j.faults.detection_s = v.quantity(Quantity::Time); });
  keys.job("faults.restart_time", "time", "60s",
           "restart: time to restart the job and reload the last checkpoint (then lost iterations are recomputed).",
           [](J& j, const V& v) { j.faults.restart_s = v.quantity(Quantity::Time); });
  keys.job("faults.recovery", "one of: restart, elastic", "restart",
           "After a failure: restart from the last checkpoint, or continue elastically without the failed "
           "device or node (no work lost; fewer workers).",
           [](J& j, const V& v) {
             j.faults.recovery = v.choice<Recovery>({{"restart", Recovery::Restart}, {"elastic", Recovery::Elastic}});
           });
  keys.job("faults.horizon", "iterations or time", "24h",
           "The wall time (e.g. 24h) or failure-free iterations (e.g. 100000) goodput is evaluated over.",
           [](J& j, const V& v) {
             iterations_or_time(v, j.faults.horizon_iterations, j.faults.horizon_s);
             if (j.faults.horizon_iterations == 0 && j.faults.horizon_s <= 0) {
               v.fail(fmt::format("must be greater than zero (got '{}')", v.text()));
             }
           });
  keys.job("faults.trials", "count", "20", "Monte Carlo trials of the horizon averaged in the run's report.",
           [](J& j, const V& v) { j.faults.trials = v.count(1); });
}

void finish_faults(const Scenario& s, size_t index, JobSpec& job) {
  FaultSpec& f = job.faults;
  const std::string trace_key = s.job_key(index, "faults.trace");
  if (!f.trace.empty() && s.where.count(s.job_key(index, "faults.mtbf")) > 0 && f.mtbf_s > 0) {
    throw InputError(s.location_of(trace_key),
                     fmt::format("{}: give faults.mtbf or faults.trace, not both", trace_key));
  }
  if (f.trace.empty()) return;
  std::filesystem::path p(f.trace);
  if (p.is_relative()) p = std::filesystem::path(s.path).parent_path() / p;
  if (!std::filesystem::exists(p)) {
    throw InputError(s.location_of(trace_key), fmt::format("{}: no such file '{}'", trace_key, p.string()));
  }
  f.trace_times = load_failure_trace(p.string());
}

}  // namespace dtsim
