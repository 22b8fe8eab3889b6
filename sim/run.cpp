// One run of a scenario, decided in one place (run.hpp).
#include "sim/run.hpp"

#include <memory>

#include "sim/analytical/symmetric.hpp"
#include "sim/footprint.hpp"
#include "sim/make_executor.hpp"

namespace dtsim::sim {
namespace {

RunResult run_every_rank(const Scenario& s, Plan plan, const RunRequest& request) {
  RunResult r;
  r.plan = std::move(plan);
  if (request.before_run) request.before_run(r.plan);
  Recorder recorder;
  recorder.reserve(static_cast<size_t>(r.plan.total_ops()) * (r.plan.iterations + r.plan.warmup));
  const std::unique_ptr<Executor> engine = make_executor(s);
  const RunInfo info = engine->run(r.plan, recorder);
  r.records = recorder.records();
  r.metrics = compute_job_metrics(r.plan, r.records, info);
  return r;
}

// The analytical engine asked for metrics only: its fast path where it applies, else its full engine (no plan kept).
bool analytical_metrics_only(const Scenario& s, const RunRequest& request) {
  return request.records == Records::None && s.run.engine == Engine::Analytical;
}

}  // namespace

bool runs_stage_representatives(const Scenario& s) {
  return s.run.engine == Engine::Analytical && s.jobs.size() == 1 && s.job().strategy.kind == StrategyKind::Hybrid &&
         analytical::is_symmetric(s);
}

RunPath run_path(const Scenario& s, const RunRequest& request) {
  switch (request.records) {
    case Records::None:
      return s.run.engine == Engine::Analytical && analytical::is_symmetric(s) ? RunPath::SymmetricFastPath
                                                                               : RunPath::EveryRank;
    case Records::Blocks:
    case Records::Kernels: return runs_stage_representatives(s) ? RunPath::StageRepresentatives : RunPath::EveryRank;
    case Records::EveryRankKernels: return RunPath::EveryRank;
  }
  return RunPath::EveryRank;
}

void check_memory(const Scenario& s, const RunRequest& request) {
  refuse_if_too_big(s, analytical_metrics_only(s, request) ? estimate_fast_path_footprint(s) : estimate_footprint(s));
}

RunResult run(const Scenario& s, const RunRequest& request) {
  if (request.check_memory) check_memory(s, request);
  if (analytical_metrics_only(s, request)) {  // the fast path where it applies, else the full analytical engine
    RunResult r;
    r.metrics = analytical::run_analytical(s);
    return r;
  }
  if (run_path(s, request) == RunPath::StageRepresentatives) {
    analytical::StageRun stages = analytical::run_stage_representatives(
        s, request.records == Records::Kernels ? PlanDetail::Kernels : PlanDetail::Blocks);
    return RunResult{std::move(stages.plan), std::move(stages.records), std::move(stages.metrics)};
  }
  const bool kernels_read = request.records == Records::Kernels || request.records == Records::EveryRankKernels;
  return run_every_rank(s, compile_for_engine(s, kernels_read), request);
}

RunResult run_plan(const Scenario& s, Plan plan) { return run_every_rank(s, std::move(plan), RunRequest{}); }

}  // namespace dtsim::sim
