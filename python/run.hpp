// One run of a scenario for the Python module: what `dtsim run` computes (metrics.json and the
// trace), handed back as JSON instead of written to files. SimGrid keeps process-wide state, so a
// SimGrid run goes to a child process through sim/sweep's pool; an analytical run stays here.
#pragma once

#include <nlohmann/json.hpp>

#include "core/scenario/scenario.hpp"
#include "sim/sweep/point_runner.hpp"

namespace dtsim::py {

// {"metrics": metrics.json, "trace": trace.json's text or null, "warnings": [...]}, computed as
// cli/run_command.cpp computes them (the tests hold the two to the same numbers): the run is prepared here (its
// memory checked, its plan compiled once, sim/run.hpp), and run in a child process for SimGrid; `stop` is asked
// while the child runs (it throws to stop it).
nlohmann::json run_scenario(const Scenario& s, bool trace, const sweep::StopCheck& stop);

}  // namespace dtsim::py
