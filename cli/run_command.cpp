// `dtsim run` and `dtsim check`: load a scenario, compile its Plan, run an engine, write results.
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/convergence_summary.hpp"
#include "cli/summary.hpp"
#include "core/base/units.hpp"
#include "core/plan/hybrid/job.hpp"
#include "core/run/metrics.hpp"
#include "core/run/run_folder.hpp"
#include "core/scenario/loader.hpp"
#include "core/scenario/warnings.hpp"
#include "learn/learner.hpp"
#include "sim/faults/evaluate.hpp"
#include "sim/footprint.hpp"
#include "sim/run.hpp"

namespace dtsim::cli {
namespace {

// The scenario's warnings, and for `run` the layouts that do not fit in memory (a run reports them
// and goes on: the timing of a layout that needs a bigger device is still worth seeing).
void print_warnings(const Scenario& s, bool memory = false) {
  for (const std::string& w : scenario_warnings(s)) std::cerr << w << "\n";
  for (size_t i = 0; memory && i < s.jobs.size(); ++i) {
    if (const auto overflow = memory_overflow(s, i)) std::cerr << "warning: " << *overflow << "\n";
  }
}

}  // namespace

int run_command(const RunOptions& o) {
  std::vector<std::string> sets = o.sets;
  if (!o.engine.empty()) sets.push_back("run.engine=" + o.engine);
  const Scenario s = load_scenario(o.scenario, sets);
  // A run that would exhaust memory is refused before anything else is said of it (sim/run.hpp decides how the run
  // is made, and so what it will hold).
  const sim::RunRequest request{o.trace ? sim::Records::Kernels : sim::Records::Blocks, true, [](const Plan& p) {
                                  for (const std::string& w : p.warnings) std::cerr << w << "\n";
                                }};
  sim::PreparedRun prepared = sim::prepare(s, request);
  print_warnings(s, true);
  // Read the proxy's data before simulating, so a bad file is reported at once.
  const learn::Split data = s.run.convergence.enabled ? learn::load_split(s) : learn::Split{};
  // A symmetric hybrid job on the analytical engine runs one rank per pipeline stage, everything else every rank
  // (sim/run.hpp); the plan's warnings are said before a long run.
  sim::RunResult run = sim::run(s, std::move(prepared), request);
  const Plan& plan = run.plan;
  std::vector<Metrics>& jobs = run.metrics;
  faults::add_fault_reports(s, jobs);
  // The Learner reads the finished run's records: it cannot change the timeline.
  const std::vector<learn::ConvergenceResult> convergence = learn::train_jobs(s, plan, run.records, data);

  const std::string out = o.out.empty() ? (std::filesystem::path("runs") / s.name).string() : o.out;
  const RunFolder folder(out);  // metrics.json last: it marks a finished run (docs/outputs.md)
  nlohmann::json metrics = run_metrics_json(jobs);
  learn::attach_convergence(s, convergence, metrics);
  if (!convergence.empty()) folder.write("convergence.csv", learn::convergence_csv(convergence));
  if (o.trace) folder.write_trace(plan, run.records, s.cluster.nodes);
  folder.write_metrics(metrics);
  if (o.json) {
    std::cout << metrics.dump(2) << "\n";
  } else {
    print_summary(std::cout, s, jobs);
    print_convergence(std::cout, s, convergence);
    std::cout << fmt::format("wrote {}/metrics.json{}{}\n", out, o.trace ? fmt::format(" and {}/trace.json", out) : "",
                             convergence.empty() ? "" : fmt::format(" and {}/convergence.csv", out));
  }
  return 0;
}

int check_command(const std::string& scenario, const std::vector<std::string>& sets) {
  const Scenario s = load_scenario(scenario, sets);
  print_warnings(s);
  // What `dtsim run` would hold, refused when it would not fit.
  Plan plan;  // of the representatives where the strategy has them (sim/footprint.hpp)
  const sim::Footprint footprint = sim::estimate_footprint(s, &plan);
  sim::refuse_if_too_big(s, footprint);
  for (const std::string& w : plan.warnings) std::cerr << w << "\n";
  if (s.run.convergence.enabled) learn::load_split(s);  // the proxy's data files must read
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    // A layout that does not fit in its devices' memory is bad input: the run would not start.
    if (const auto overflow = memory_overflow(s, i)) {
      throw InputError(s.location_of(s.job_key(i, "strategy.kind")), *overflow);
    }
  }
  const sim::Available& available = footprint.available;  // the reading the estimate was judged against
  std::cout << fmt::format("{}: ok ({} nodes x {} {}; {:.0f} ops per iteration; a run holds about {} of the {} {})\n",
                           scenario, s.cluster.nodes, s.cluster.devices_per_node, s.cluster.device_names(),
                           footprint.ops_per_iteration, format_bytes(footprint.bytes), format_bytes(available.bytes),
                           available.what);
  for (const auto& job : plan.jobs) {
    std::cout << fmt::format("  job {}: {} workers{}\n", job.name, job.workers.size(),
                             job.servers.empty() ? "" : fmt::format(" + {} servers", job.servers.size()));
  }
  return 0;
}

}  // namespace dtsim::cli
