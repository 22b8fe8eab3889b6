// One run of a scenario, decided in one place (run.hpp).
#include "sim/run.hpp"

#include <memory>
#include <utility>

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

bool kernels_read(const RunRequest& request) {
  return request.records == Records::Kernels || request.records == Records::EveryRankKernels;
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

PreparedRun prepare(const Scenario& s, const RunRequest& request) {
  PreparedRun p;
  p.path = run_path(s, request);
  const bool check = request.check_memory;
  if (p.path == RunPath::SymmetricFastPath) {  // no records, every rank's metrics
    if (check) refuse_if_too_big(s, estimate_fast_path_footprint(s));
    return p;
  }
  if (check) {
    if (const auto too_big = footprint_too_big_to_compile(s)) refuse_if_too_big(s, *too_big);
  }
  if (p.path == RunPath::StageRepresentatives) {
    p.plan = compile_plan(s, PlanScope::Representatives,
                          request.records == Records::Kernels ? PlanDetail::Kernels : PlanDetail::Blocks);
    if (check) refuse_if_too_big(s, footprint_of(s, p.plan, PlanScope::Representatives, true));
    return p;
  }
  const PlanDetail detail = plan_detail_for_engine(s, kernels_read(request));
  if (check && has_representatives(s)) {  // counted a rank per class before every rank is compiled
    refuse_if_too_big(
        s, footprint_of(s, compile_plan(s, PlanScope::Representatives, detail), PlanScope::Representatives, false));
  }
  p.plan = compile_plan(s, PlanScope::AllRanks, detail);
  if (check && !has_representatives(s)) refuse_if_too_big(s, footprint_of(s, p.plan, PlanScope::AllRanks, false));
  return p;
}

RunResult run(const Scenario& s, PreparedRun prepared, const RunRequest& request) {
  switch (prepared.path) {
    case RunPath::SymmetricFastPath: return RunResult{{}, {}, *analytical::run_symmetric(s)};
    case RunPath::StageRepresentatives: {
      if (request.before_run) request.before_run(prepared.plan);
      analytical::StageRun stages = analytical::run_stage_representatives(s, std::move(prepared.plan));
      return RunResult{std::move(stages.plan), std::move(stages.records), std::move(stages.metrics)};
    }
    case RunPath::EveryRank: return run_every_rank(s, std::move(prepared.plan), request);
  }
  return {};
}

RunResult run(const Scenario& s, const RunRequest& request) { return run(s, prepare(s, request), request); }

RunResult run_plan(const Scenario& s, Plan plan) { return run_every_rank(s, std::move(plan), RunRequest{}); }

}  // namespace dtsim::sim
