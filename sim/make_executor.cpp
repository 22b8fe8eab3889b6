// The engine a scenario asks for: the analytical engine or SimGrid at the scenario's fidelity.
#include "sim/make_executor.hpp"

#include "sim/analytical/engine.hpp"
#include "sim/simgrid/executor.hpp"

namespace dtsim::sim {

std::unique_ptr<Executor> make_executor(const Scenario& s) {
  if (s.run.engine == Engine::Analytical) return std::make_unique<analytical::AnalyticalExecutor>(s.cluster);
  return std::make_unique<sg::SimGridExecutor>(s.cluster, sg::SimGridOptions{s.run.fidelity, s.run.fuse_compute});
}

}  // namespace dtsim::sim
