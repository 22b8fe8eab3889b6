// One run of a scenario on its engine (run_scenario.hpp).
#include "sim/run_scenario.hpp"

#include <memory>

#include "core/run/metrics.hpp"
#include "sim/make_executor.hpp"

namespace dtsim::sim {

analytical::StageRun run_scenario(const Scenario& s, bool trace, const std::function<void(const Plan&)>& before_run) {
  const bool stages = s.run.engine == Engine::Analytical && s.job().strategy.kind == StrategyKind::Hybrid &&
                      analytical::is_symmetric(s);
  if (stages) return analytical::run_stage_representatives(s, trace ? PlanDetail::Kernels : PlanDetail::Blocks);
  analytical::StageRun run;
  run.plan = compile_for_engine(s, trace);
  if (before_run) before_run(run.plan);
  Recorder recorder;
  recorder.reserve(static_cast<size_t>(run.plan.total_ops()) * (run.plan.iterations + run.plan.warmup));
  const std::unique_ptr<Executor> engine = make_executor(s);
  const RunInfo info = engine->run(run.plan, recorder);
  run.records = recorder.records();
  run.metrics = compute_job_metrics(run.plan, run.records, info);
  return run;
}

}  // namespace dtsim::sim
