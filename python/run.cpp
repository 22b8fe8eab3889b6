// One run for the Python module (run.hpp): cli/run_command.cpp's steps without its files.
#include "python/run.hpp"

#include <memory>

#include "core/plan/hybrid_job.hpp"
#include "core/run/metrics.hpp"
#include "core/run/trace.hpp"
#include "core/scenario/warnings.hpp"
#include "learn/learner.hpp"
#include "sim/analytical/symmetric.hpp"
#include "sim/faults/evaluate.hpp"
#include "sim/footprint.hpp"
#include "sim/run_scenario.hpp"

namespace dtsim::py {

void add_convergence(const Scenario& s, const Plan& plan, const std::vector<OpRecord>& records,
                     nlohmann::json& metrics) {
  if (!s.run.convergence.enabled) return;
  const std::vector<learn::ConvergenceResult> results = learn::train_jobs(s, plan, records, learn::load_split(s));
  for (size_t j = 0; j < results.size(); ++j) {
    metrics["jobs"][j]["convergence"] = learn::convergence_json(s, results[j]);
    if (j == 0) metrics["convergence"] = metrics["jobs"][j]["convergence"];
  }
}

nlohmann::json run_here(const Scenario& s, bool trace) {
  sim::refuse_if_too_big(s, sim::estimate_footprint(s));
  nlohmann::json warnings = scenario_warnings(s);
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    if (const auto overflow = memory_overflow(s, i)) warnings.push_back("warning: " + *overflow);
  }
  // As `dtsim run`: a symmetric hybrid job on the analytical engine runs one rank per pipeline stage.
  analytical::StageRun run = sim::run_scenario(s, trace);
  faults::add_fault_reports(s, run.metrics);
  nlohmann::json metrics = run_metrics_json(run.metrics);
  add_convergence(s, run.plan, run.records, metrics);
  nlohmann::json out{{"metrics", std::move(metrics)}, {"trace", nullptr}, {"warnings", std::move(warnings)}};
  // As text: Python parses it when the events are first read (json.loads is faster than a conversion here).
  if (trace) out["trace"] = trace_json(run.plan, run.records, s.cluster.nodes);
  return out;
}

nlohmann::json run_scenario(const Scenario& s, bool trace, const sweep::StopCheck& stop) {
  // What the child would refuse is refused here, as the located InputError it is (dtsim.ScenarioError).
  sim::refuse_if_too_big(s, sim::estimate_footprint(s));
  if (s.run.convergence.enabled) learn::load_split(s);
  nlohmann::json out;
  sweep::run_points_with(
      {s}, {0}, 1, [&](size_t, const nlohmann::json& result) { out = result; },
      [&](const Scenario& point) { return run_here(point, trace); }, stop);
  return out;
}

}  // namespace dtsim::py
