// One run of a scenario on the engine it asks for, as `dtsim run` and the Python module do it: the plan, its op
// records and every job's metrics.
#pragma once

#include <functional>

#include "core/scenario/scenario.hpp"
#include "sim/analytical/symmetric.hpp"

namespace dtsim::sim {

// A symmetric hybrid job on the analytical engine runs one rank per pipeline stage (every rank's metrics, the
// representatives' records: with `trace` every kernel an op, else each block one op); everything else runs every
// rank on make_executor's engine, the plan compiled for it (compile_for_engine). `before_run` sees that plan before
// the engine starts (its warnings can be said before a long run).
analytical::StageRun run_scenario(const Scenario& s, bool trace,
                                  const std::function<void(const Plan&)>& before_run = nullptr);

}  // namespace dtsim::sim
