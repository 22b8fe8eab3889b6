// The engine a scenario asks for (run.engine), built for its cluster: the one place that chooses.
#pragma once

#include <memory>

#include "core/run/observer.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim::sim {

std::unique_ptr<Executor> make_executor(const Scenario& s);

}  // namespace dtsim::sim
