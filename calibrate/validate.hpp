// `dtsim validate`: runs a scenario's Plan for real (dtsim-real under mpirun, spawned here) and
// in simulation with a calibration profile, on the same scaled Plan, and reports per metric and
// per op kind: predicted, measured, error %, with the mean and largest absolute error.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cluster/cluster.hpp"
#include "core/plan/plan.hpp"
#include "core/run/observer.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim::calib {

struct ValidateOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::string calibration;  // profile.yaml (required)
  Backend backend = Backend::Cpu;
  std::string engine;  // "" = the scenario's run.engine
  // Launcher prefix: "-np N dtsim-real ..." is appended, or with "{n}" in it (srun -n {n}) the rank
  // count goes there and "dtsim-real ..." is appended; "none" runs dtsim-real --gpus N without a
  // launcher (--backend cuda: a thread per GPU of this node).
  std::string mpirun = "mpirun --oversubscribe";
  std::string compute_scale = "auto";  // as dtsim-real's --compute-scale
  std::string out;                     // "" = runs/<scenario name>-validate
  std::string real_binary;             // "" = dtsim-real next to this executable
  bool json = false;                   // print validation.json instead of the table
  int repeats = 3;                     // real runs; each measured value is their median
};

// One row: a metric or an op kind.
struct ValidationRow {
  std::string name;
  std::string unit;  // "s", "samples/s"
  double predicted = 0;
  double measured = 0;        // the median over the real runs
  std::vector<double> runs;   // the measured value of each real run
  double spread_pct() const;  // (largest - smallest) / median of `runs`, in %: the measurement noise
  double error_pct() const { return measured != 0 ? 100.0 * (predicted - measured) / measured : 0.0; }
};

struct ValidationReport {
  std::string scenario;
  std::string profile;
  Backend backend = Backend::Cpu;
  std::string engine;
  int ranks = 0;
  double compute_scale = 1;
  std::vector<ValidationRow> metrics;   // iteration time, compute, communication, exposed communication, throughput
  std::vector<ValidationRow> op_kinds;  // mean duration of one op, per kind
  double mean_abs_error_pct = 0;        // over `metrics`
  double max_abs_error_pct = 0;
  int repeats = 1;  // real runs the measured values are the median of
  // The iteration time the same engine predicts with contention switched off
  // (cluster.contention.compute=1: compute beside communication at its full rate, and on a cpu
  // profile communication no longer waiting for the cores), for the side-by-side; 0 when not run
  // (SimGrid: one simulation per process).
  double iteration_without_contention = 0;
  // Its error against the measured iteration time, in % (0 when either is missing).
  double without_contention_error_pct() const;
  // What limits how far this comparison can be trusted (validation_caveats), one sentence each.
  std::vector<std::string> caveats;
  // What the profile's own checks found (profile_cautions), printed before the runs.
  std::vector<std::string> profile_cautions;
};

// What a user should weigh the errors against, one sentence each: the real runs' spread of
// iteration time above 5 % (noise no prediction can be checked closer than); ranks sharing the
// profile's cores (shared_cores(): the OS's scheduling of communication is not modelled); more
// ranks than cores with a profile measured with another rank count on one host (the engines then
// give each rank a core of its own). `cluster` holds the profile (cluster.calibration).
std::vector<std::string> validation_caveats(const ValidationReport& r, const ClusterSpec& cluster, const Plan& plan);

// What the profile's own checks found, one sentence each: a failed self-check
// (calibrate/self_check.hpp), each curve marked or refused (calibrate/fit_checks.hpp), or that the
// profile predates the fit checks; validate prints these before it runs anything.
std::vector<std::string> profile_cautions(const CalibrationProfile& p);

// One report from the reports of several real runs against the same prediction: every row's
// measured value is the median over the runs (a row missing from a run is left out of it), and
// the errors are recomputed.
ValidationReport median_over_runs(const std::vector<ValidationReport>& runs);

// Per op kind ("compute:forward", "allreduce", "send", ...) the mean duration of one op over the
// measured iterations (iteration >= warmup), read from a trace.json; and per collective kind,
// "<kind> after the last rank entered": the mean of (end - the latest start among the ranks of
// the same instance), which leaves out the wait for a late peer (skew).
std::vector<std::pair<std::string, double>> op_kind_means(const nlohmann::json& trace, int warmup);

// The rows and their errors from the simulated and measured metrics.json and trace.json.
ValidationReport compare_runs(const nlohmann::json& predicted_metrics, const nlohmann::json& measured_metrics,
                              const nlohmann::json& predicted_trace, const nlohmann::json& measured_trace, int warmup);

nlohmann::json report_json(const ValidationReport& r);
void print_report(std::ostream& out, const ValidationReport& r);

// The whole command: refuses a missing, malformed or other-backend profile (InputError), runs
// both sides, writes <out>/validation.json (and the real and simulated runs' folders beside it),
// prints the table. Returns the exit code.
int validate(const ValidateOptions& o, std::ostream& out);

}  // namespace dtsim::calib
