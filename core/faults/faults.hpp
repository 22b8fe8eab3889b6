// Failures and checkpoints of a job: the scenario's `faults.*` keys, the pure first-order math
// (checkpoint size and cost, Young/Daly), and the report a run writes under `faults` in
// metrics.json. The timeline itself is simulated in sim/faults/.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dtsim {

enum class FaultScope { Device, Node };
enum class Recovery { Restart, Elastic };

struct FaultSpec {
  bool operator==(const FaultSpec&) const = default;
  double mtbf_s = 0;  // mean time between failures of one device or node; 0 = none
  FaultScope scope = FaultScope::Node;
  std::string trace;                       // a file of failure times (resolved against the scenario's folder)
  std::vector<double> trace_times;         // loaded from `trace`, seconds from the start, sorted
  double checkpoint_interval_s = 0;        // useful work between checkpoints, as a time (0: see _iterations)
  int checkpoint_interval_iterations = 0;  // or as iterations; both 0 = no checkpoints
  double checkpoint_size = 0;              // bytes; 0 = from the model and optimizer state
  double write_bandwidth = 10e9;           // bytes/s to storage, aggregate
  double detection_s = 30;
  double restart_s = 60;  // reload from the checkpoint and re-form the job
  Recovery recovery = Recovery::Restart;
  double horizon_s = 0;  // wall time evaluated over (0: see horizon_iterations)
  int horizon_iterations = 0;
  int trials = 20;  // Monte Carlo trials averaged in a run's report

  bool enabled() const {
    return mtbf_s > 0 || !trace.empty() || checkpoint_interval_s > 0 || checkpoint_interval_iterations > 0;
  }
};

// Bytes of a checkpoint: parameters x (4 bytes of fp32 master weights + 4 bytes per optimizer
// state copy: none for SGD, momentum 1, Adam 2).
double checkpoint_bytes(double params, double optimizer_states);

// Young/Daly's first-order optimum sqrt(2 C M) for checkpoint cost C and mean time between
// failures M of the whole job.
double young_daly_interval(double checkpoint_cost_s, double mtbf_s);

// First-order expected waste per unit time: C/tau + tau/(2M) + R/M.
double young_daly_waste(double checkpoint_cost_s, double interval_s, double mtbf_s, double restart_s);

// Failure times from a trace file: one per line, a time with a unit (`3.5h`) or seconds;
// blank lines and `#` comments are skipped. InputError with file:line on a bad line.
std::vector<double> load_failure_trace(const std::string& path);

// What a run reports for a job with faults (means over the trials).
struct FaultReport {
  std::string recovery;  // restart or elastic
  std::string scope;     // device or node
  int trials = 0;
  double horizon_s = 0;
  double job_mtbf_s = 0;  // of the whole job (per-unit MTBF / units); 0 for a trace or no failures
  double checkpoint_bytes = 0;
  double checkpoint_cost_s = 0;
  double checkpoint_interval_s = 0;  // 0 = no checkpoints
  double checkpoint_interval_iterations = 0;
  double young_daly_interval_s = 0;  // 0 where it does not apply
  double throughput = 0;             // samples/s without failures or checkpoints
  double goodput = 0;                // useful samples per wall-clock second over the horizon
  double failures = 0;
  double useful_s = 0;      // time spent on work that was kept
  double checkpoint_s = 0;  // time lost by cause
  double lost_work_s = 0;   // work done and lost (recomputed afterwards)
  double detection_s = 0;
  double restart_s = 0;
  double idle_s = 0;  // elastic: every worker gone
  double workers_at_end = 0;
};

// The `faults` object of a job in metrics.json.
nlohmann::json fault_report_json(const FaultReport& r);

}  // namespace dtsim
