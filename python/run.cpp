// One run for the Python module (run.hpp): cli/run_command.cpp's steps without its files.
#include "python/run.hpp"

#include <string>
#include <utility>

#include "core/plan/hybrid/job.hpp"
#include "core/run/metrics.hpp"
#include "core/run/trace.hpp"
#include "core/scenario/warnings.hpp"
#include "learn/learner.hpp"
#include "sim/faults/evaluate.hpp"
#include "sim/run.hpp"

namespace dtsim::py {

namespace {

// As `dtsim run` makes it: a symmetric hybrid job on the analytical engine runs one rank per pipeline stage.
sim::RunRequest request_for(bool trace) { return {trace ? sim::Records::Kernels : sim::Records::Blocks, true, {}}; }

// The prepared run, in this process or a SimGrid child's.
nlohmann::json run_here(const Scenario& s, sim::PreparedRun prepared, bool trace) {
  nlohmann::json warnings = scenario_warnings(s);
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    if (const auto overflow = memory_overflow(s, i)) warnings.push_back("warning: " + *overflow);
  }
  sim::RunRequest request = request_for(trace);
  request.before_run = [&](const Plan& plan) {
    for (const std::string& w : plan.warnings) warnings.push_back(w);
  };
  sim::RunResult run = sim::run(s, std::move(prepared), request);
  faults::add_fault_reports(s, run.metrics);
  nlohmann::json metrics = run_metrics_json(run.metrics);
  learn::add_convergence(s, run.plan, run.records, metrics);
  nlohmann::json out{{"metrics", std::move(metrics)}, {"trace", nullptr}, {"warnings", std::move(warnings)}};
  // As text: Python parses it when the events are first read (json.loads is faster than a conversion here).
  if (trace) out["trace"] = trace_json(run.plan, run.records, s.cluster.nodes);
  return out;
}

}  // namespace

nlohmann::json run_scenario(const Scenario& s, bool trace, const sweep::StopCheck& stop) {
  // What the child would refuse is refused here, as the located InputError it is (dtsim.ScenarioError).
  sim::PreparedRun prepared = sim::prepare(s, request_for(trace));
  if (s.run.convergence.enabled) learn::load_split(s);
  nlohmann::json out;
  sweep::run_points_with(
      {s}, {0}, 1, [&](size_t, const nlohmann::json& result) { out = result; },
      [&](const Scenario& point) { return run_here(point, std::move(prepared), trace); }, stop);
  return out;
}

}  // namespace dtsim::py
