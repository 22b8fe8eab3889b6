// make_executor of a dtsim linked without the SimGrid engine (the GPU bundle's dtsim, built by
// scripts/gpu-bundle for bare GPU machines that have no SimGrid): the analytical engine, and a
// located refusal of run.engine: simgrid. Linked in place of make_executor.cpp, never beside it.
#include <fmt/format.h>

#include "core/base/error.hpp"
#include "sim/analytical/engine.hpp"
#include "sim/make_executor.hpp"

namespace dtsim::sim {

std::unique_ptr<Executor> make_executor(const Scenario& s) {
  if (s.run.engine == Engine::Analytical) return std::make_unique<analytical::AnalyticalExecutor>(s.cluster);
  throw InputError(s.location_of("run.engine"),
                   "run.engine: this dtsim was built without the SimGrid engine (the GPU bundle); use --engine "
                   "analytical (or --set run.engine=analytical)");
}

bool simgrid_available() { return false; }

// Without SimGrid every plan is the kernels' (make_executor.cpp folds only for SimGrid).
PlanDetail plan_detail_for_engine(const Scenario&, bool) { return PlanDetail::Kernels; }

}  // namespace dtsim::sim
