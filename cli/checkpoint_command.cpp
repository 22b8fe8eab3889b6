// `dtsim checkpoint`: run the scenario once for the job's iteration time, then scan checkpoint
// intervals with the Monte Carlo timeline and print the best one, Young/Daly's, and the curve.
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "core/scenario/loader.hpp"
#include "sim/faults/evaluate.hpp"
#include "sim/run.hpp"

namespace dtsim::cli {
namespace {

std::vector<Metrics> engine_metrics(const Scenario& s) { return sim::run(s, {sim::Records::None, true, {}}).metrics; }

nlohmann::json scan_json(const faults::CheckpointScan& scan) {
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& p : scan.curve) {
    curve.push_back(
        {{"interval_s", p.interval_s}, {"goodput_samples_per_s", p.goodput}, {"failures", p.mean.failures}});
  }
  return nlohmann::json{{"checkpoint_cost_s", scan.checkpoint_cost_s},
                        {"job_mtbf_s", scan.job_mtbf_s},
                        {"young_daly_interval_s", scan.young_daly_s},
                        {"throughput_samples_per_s", scan.throughput},
                        {"iteration_time_s", scan.iteration_s},
                        {"best_interval_s", scan.best_interval_s},
                        {"best_goodput_samples_per_s", scan.best_goodput},
                        {"curve", curve}};
}

}  // namespace

int checkpoint_command(const CheckpointOptions& o) {
  std::vector<std::string> sets = o.sets;
  if (!o.engine.empty()) sets.push_back("run.engine=" + o.engine);
  const Scenario s = load_scenario(o.scenario, sets);
  if (o.job < 0 || static_cast<size_t>(o.job) >= s.jobs.size()) {
    throw InputError(fmt::format("--job {}: the scenario has jobs 0..{}", o.job, s.jobs.size() - 1));
  }
  const size_t job = static_cast<size_t>(o.job);
  const FaultSpec& f = s.jobs[job].faults;
  if (f.mtbf_s <= 0 && f.trace.empty()) {
    throw InputError(s.location_of(s.job_key(job, "faults.mtbf")),
                     "dtsim checkpoint needs failures: set faults.mtbf (e.g. 12h) or faults.trace");
  }
  const std::vector<Metrics> jobs = engine_metrics(s);
  const faults::TimelineConfig base = faults::timeline_config(s, job, jobs[job]);
  // Like a run's fault report (sim/faults/evaluate.cpp), a scan of more than 1e8 events would take minutes.
  if (const double events = faults::scan_events(base, o.trials, o.points); events > 1e8) {
    throw InputError(
        fmt::format("--trials {} x --points {}: the scan would step through {:.3g} failure and "
                    "checkpoint events (at most 1e8, seconds here); use fewer trials or points, or a "
                    "longer faults.mtbf or a costlier checkpoint (Young/Daly's interval grows with both)",
                    o.trials, o.points, events));
  }
  const faults::CheckpointScan scan =
      faults::scan_checkpoint_intervals(base, static_cast<std::uint64_t>(s.run.seed), o.trials, o.points);
  if (o.json) {
    std::cout << scan_json(scan).dump(2) << "\n";
    return 0;
  }
  const double it = scan.iteration_s;
  std::cout << fmt::format("dtsim checkpoint: {} (job {}, {} workers, {} recovery)\n", s.name, s.jobs[job].name,
                           jobs[job].workers, f.recovery == Recovery::Restart ? "restart" : "elastic");
  std::cout << fmt::format("  iteration {}, throughput {:.1f} samples/s; checkpoint {} ({} at {}/s); job MTBF {}\n",
                           format_time(it), scan.throughput, format_time(scan.checkpoint_cost_s),
                           format_bytes(scan.checkpoint_cost_s * f.write_bandwidth), format_bytes(f.write_bandwidth),
                           format_time(scan.job_mtbf_s));
  std::cout << fmt::format("  {} trials of {} per interval (seed {})\n\n", o.trials, format_time(base.horizon_s),
                           s.run.seed);
  std::cout << fmt::format("  {:>12} {:>12} {:>14} {:>10} {:>9}\n", "interval", "iterations", "goodput", "of peak",
                           "failures");
  for (const auto& p : scan.curve) {
    std::cout << fmt::format("  {:>12} {:>12.0f} {:>14.1f} {:>8.2f} % {:>9.2f}\n", format_time(p.interval_s),
                             p.interval_s / it, p.goodput, 100.0 * p.goodput / scan.throughput, p.mean.failures);
  }
  std::cout << fmt::format("\n  suggested interval   {} ({:.0f} iterations): goodput {:.1f} samples/s ({:.2f} %)\n",
                           format_time(scan.best_interval_s), scan.best_interval_s / it, scan.best_goodput,
                           100.0 * scan.best_goodput / scan.throughput);
  if (scan.young_daly_s > 0) {
    std::cout << fmt::format("  Young/Daly sqrt(2CM) {} ({:.0f} iterations); suggested / Young-Daly = {:.3f}\n",
                             format_time(scan.young_daly_s), scan.young_daly_s / it,
                             scan.best_interval_s / scan.young_daly_s);
  }
  return 0;
}

}  // namespace dtsim::cli
