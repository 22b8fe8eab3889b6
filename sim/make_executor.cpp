// The engine a scenario asks for: the analytical engine or SimGrid at the scenario's fidelity.
#include "sim/make_executor.hpp"

#include "core/plan/compiler.hpp"
#include "sim/analytical/engine.hpp"
#include "sim/analytical/symmetric.hpp"
#include "sim/simgrid/executor.hpp"

namespace dtsim::sim {

std::unique_ptr<Executor> make_executor(const Scenario& s) {
  if (s.run.engine == Engine::Analytical) return std::make_unique<analytical::AnalyticalExecutor>(s.cluster);
  return std::make_unique<sg::SimGridExecutor>(s.cluster, sg::SimGridOptions{s.run.fidelity, s.run.fuse_compute});
}

bool simgrid_available() { return true; }

PlanDetail plan_detail_for_engine(const Scenario& s, bool op_records_read) {
  const bool folds = s.run.engine == Engine::SimGrid && s.run.fidelity == Fidelity::Flow && s.run.fuse_compute &&
                     !op_records_read && s.job().strategy.kind == StrategyKind::Hybrid && analytical::is_symmetric(s);
  return folds ? PlanDetail::NodeBlocks : PlanDetail::Kernels;
}

}  // namespace dtsim::sim
