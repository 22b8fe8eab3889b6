// From a scenario and its engine metrics to each job's fault report, and the interval scan.
#include "sim/faults/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <Eigen/Dense>

#include "core/base/error.hpp"
#include "core/plan/worker.hpp"
#include "sim/analytical/symmetric.hpp"

namespace dtsim::faults {
namespace {

// Throughput and iteration time with `workers` workers, from the analytical engine, relative to
// the full job (so the engine's own result stays the reference).
class ElasticRates {
 public:
  ElasticRates(const Scenario& s, size_t job, const Metrics& m) : s_(s), job_(job), full_(m.workers) {
    rates_[full_] = JobRate{m.iteration_time.mean, m.throughput_samples_per_s};
  }

  JobRate operator()(int workers) {
    const auto it = rates_.find(workers);
    if (it != rates_.end()) return it->second;
    const JobRate full = rates_.at(full_);
    JobRate r{full.iteration_s, full.samples_per_s * workers / full_};  // if the smaller job cannot be evaluated
    try {
      if (!analytical_full_) analytical_full_ = analytical(full_);
      const JobRate a = analytical(workers);
      r = JobRate{full.iteration_s * a.iteration_s / analytical_full_->iteration_s,
                  full.samples_per_s * a.samples_per_s / analytical_full_->samples_per_s};
    } catch (const InputError&) {
    }
    rates_[workers] = r;
    return r;
  }

 private:
  JobRate analytical(int workers) const {
    Scenario copy = s_;
    copy.jobs[job_].strategy.workers = workers;
    const std::vector<Metrics> m = analytical::run_analytical(copy);
    return JobRate{m[job_].iteration_time.mean, m[job_].throughput_samples_per_s};
  }

  Scenario s_;
  size_t job_;
  int full_;
  std::map<int, JobRate> rates_;
  std::optional<JobRate> analytical_full_;
};

}  // namespace

TimelineConfig timeline_config(const Scenario& s, size_t job, const Metrics& m) {
  const JobSpec& j = s.jobs[job];
  const FaultSpec& f = j.faults;
  TimelineConfig c;
  const double size = f.checkpoint_size > 0
                          ? f.checkpoint_size
                          : checkpoint_bytes(j.workload.total_params(), optimizer_state_copies(j.model.optimizer));
  c.checkpoint_cost_s = size / f.write_bandwidth;
  c.interval_s = f.checkpoint_interval_s;
  c.interval_iterations = f.checkpoint_interval_iterations;
  c.horizon_s = f.horizon_iterations > 0 ? f.horizon_iterations * m.iteration_time.mean : f.horizon_s;
  c.detection_s = f.detection_s;
  c.restart_s = f.restart_s;
  c.recovery = f.recovery;
  c.unit_mtbf_s = f.trace.empty() ? f.mtbf_s : 0;
  c.trace = f.trace_times;
  c.workers = m.workers;
  const int per_node = std::max(1, std::min(j.local_count(s.cluster), m.workers));
  c.workers_per_unit = f.scope == FaultScope::Device ? 1 : per_node;
  c.units = f.scope == FaultScope::Device ? m.workers : (m.workers + per_node - 1) / per_node;
  auto rates = std::make_shared<ElasticRates>(s, job, m);
  c.rate = [rates](int workers) { return (*rates)(workers); };
  return c;
}

namespace {

// The timeline steps from failure to failure and checkpoint to checkpoint, about 70 ns each here (1e5
// trials of 48 failures in 0.35 s): more than 1e8 events would take minutes, so such a run is refused,
// at the key that makes the events many.
void refuse_if_too_long(const Scenario& s, size_t job, const TimelineConfig& c, int trials, double iteration_s) {
  const double units = std::max(1, c.units);
  const double failures =
      c.trace.empty() ? (c.unit_mtbf_s > 0 ? c.horizon_s * units / c.unit_mtbf_s : 0) : double(c.trace.size());
  const double interval = c.interval_s > 0 ? c.interval_s : c.interval_iterations * iteration_s;
  const double checkpoints = interval > 0 ? c.horizon_s / interval : 0;
  const double per_trial = failures + checkpoints + 1;
  constexpr double kMaxEvents = 1e8;
  if (!(per_trial * trials > kMaxEvents)) return;
  const char* key = per_trial * 100 < kMaxEvents ? "faults.trials"
                    : checkpoints > failures     ? "faults.checkpoint_interval"
                    : c.trace.empty()            ? "faults.mtbf"
                                                 : "faults.trace";
  throw InputError(s.location_of(s.job_key(job, key)),
                   fmt::format("{}: {} trials of {:.3g} failures and {:.3g} checkpoints in the {:.3g} s horizon are "
                               "{:.3g} events, more than the {:g} a run simulates in seconds; use fewer trials, a "
                               "longer faults.mtbf or faults.checkpoint_interval, or a shorter faults.horizon",
                               key, trials, failures, checkpoints, c.horizon_s, per_trial * trials, kMaxEvents));
}

}  // namespace

FaultReport evaluate_faults(const Scenario& s, size_t job, const Metrics& m) {
  const FaultSpec& f = s.jobs[job].faults;
  const TimelineConfig c = timeline_config(s, job, m);
  refuse_if_too_long(s, job, c, f.trials, m.iteration_time.mean);
  const TimelineResult r = simulate_trials(c, static_cast<std::uint64_t>(s.run.seed), job, f.trials);
  FaultReport out;
  out.recovery = f.recovery == Recovery::Restart ? "restart" : "elastic";
  out.scope = f.scope == FaultScope::Device ? "device" : "node";
  out.trials = f.trials;
  out.horizon_s = c.horizon_s;
  out.job_mtbf_s = c.unit_mtbf_s > 0 ? c.unit_mtbf_s / c.units : 0;
  out.checkpoint_cost_s = c.checkpoint_cost_s;
  out.checkpoint_bytes = c.checkpoint_cost_s * f.write_bandwidth;
  out.checkpoint_interval_s = c.interval_iterations > 0 ? c.interval_iterations * m.iteration_time.mean : c.interval_s;
  out.checkpoint_interval_iterations =
      m.iteration_time.mean > 0 ? out.checkpoint_interval_s / m.iteration_time.mean : 0;
  out.young_daly_interval_s = out.job_mtbf_s > 0 ? young_daly_interval(c.checkpoint_cost_s, out.job_mtbf_s) : 0;
  out.throughput = m.throughput_samples_per_s;
  out.goodput = r.goodput(c.horizon_s);
  out.failures = r.failures;
  out.useful_s = r.useful_s;
  out.checkpoint_s = r.checkpoint_s;
  out.lost_work_s = r.lost_work_s;
  out.detection_s = r.detection_s;
  out.restart_s = r.restart_s;
  out.idle_s = r.idle_s;
  out.workers_at_end = r.workers_at_end;
  return out;
}

void add_fault_reports(const Scenario& s, std::vector<Metrics>& jobs) {
  for (size_t j = 0; j < jobs.size() && j < s.jobs.size(); ++j) {
    if (!s.jobs[j].faults.enabled()) continue;
    jobs[j].faults = evaluate_faults(s, j, jobs[j]);
    jobs[j].wait_by_cause.failure = failure_wait_per_iteration(jobs[j]);
  }
}

namespace {

// The job's MTBF, Young/Daly's interval and the centre of the scan around it.
struct ScanCentre {
  double job_mtbf_s = 0, young_daly_s = 0, centre_s = 0;
};
ScanCentre scan_centre(const TimelineConfig& base) {
  ScanCentre c;
  if (!base.trace.empty()) {
    c.job_mtbf_s = base.horizon_s / static_cast<double>(base.trace.size());
  } else if (base.unit_mtbf_s > 0) {
    c.job_mtbf_s = base.unit_mtbf_s / base.units;
  }
  c.young_daly_s = c.job_mtbf_s > 0 ? young_daly_interval(base.checkpoint_cost_s, c.job_mtbf_s) : 0;
  c.centre_s = c.young_daly_s > 0 ? c.young_daly_s : base.horizon_s / 8;
  return c;
}

}  // namespace

double scan_events(const TimelineConfig& base, int trials, int points) {
  const ScanCentre c = scan_centre(base);
  const double failures = c.job_mtbf_s > 0 ? base.horizon_s / c.job_mtbf_s : 0;
  double per_trial = 0;  // over every interval scanned (as scan_checkpoint_intervals places them)
  for (int i = 0; i < points; ++i) {
    const double interval = c.centre_s * std::pow(64.0, static_cast<double>(i) / std::max(1, points - 1)) / 8.0;
    per_trial += failures + base.horizon_s / interval + 1;
  }
  return static_cast<double>(trials) * per_trial;
}

CheckpointScan scan_checkpoint_intervals(const TimelineConfig& base, std::uint64_t seed, int trials, int points) {
  CheckpointScan scan;
  scan.checkpoint_cost_s = base.checkpoint_cost_s;
  const JobRate full = base.rate(base.workers);
  scan.throughput = full.samples_per_s;
  scan.iteration_s = full.iteration_s;
  const ScanCentre sc = scan_centre(base);
  scan.job_mtbf_s = sc.job_mtbf_s;
  scan.young_daly_s = sc.young_daly_s;
  const double centre = sc.centre_s;
  TimelineConfig c = base;
  c.interval_iterations = 0;
  for (int i = 0; i < points; ++i) {
    c.interval_s = centre * std::pow(64.0, static_cast<double>(i) / std::max(1, points - 1)) / 8.0;
    const TimelineResult r = simulate_trials(c, seed, 0, trials);
    scan.curve.push_back(IntervalPoint{c.interval_s, r.goodput(c.horizon_s), r});
  }
  const auto best = std::max_element(scan.curve.begin(), scan.curve.end(),
                                     [](const auto& a, const auto& b) { return a.goodput < b.goodput; });
  scan.best_interval_s = best->interval_s;
  scan.best_goodput = best->goodput;
  // Fit waste = a/tau + b tau + c to the points within a factor 3 of the best one.
  std::vector<const IntervalPoint*> near;
  for (const auto& p : scan.curve) {
    if (p.interval_s >= best->interval_s / 3 && p.interval_s <= best->interval_s * 3) near.push_back(&p);
  }
  if (near.size() >= 3) {
    Eigen::MatrixXd a(static_cast<Eigen::Index>(near.size()), 3);
    Eigen::VectorXd y(static_cast<Eigen::Index>(near.size()));
    for (size_t i = 0; i < near.size(); ++i) {
      const auto r = static_cast<Eigen::Index>(i);
      a(r, 0) = 1.0 / near[i]->interval_s;
      a(r, 1) = near[i]->interval_s;
      a(r, 2) = 1.0;
      y(r) = 1.0 - near[i]->goodput / scan.throughput;
    }
    const Eigen::Vector3d x = a.colPivHouseholderQr().solve(y);
    if (x(0) > 0 && x(1) > 0) scan.best_interval_s = std::sqrt(x(0) / x(1));
  }
  c.interval_s = scan.best_interval_s;
  scan.best_goodput = simulate_trials(c, seed, 0, trials).goodput(c.horizon_s);
  return scan;
}

}  // namespace dtsim::faults
