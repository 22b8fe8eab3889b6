// The engine a scenario asks for (run.engine), built for its cluster: the one place that chooses.
#pragma once

#include <memory>

#include "models/observer.hpp"
#include "models/scenario.hpp"

namespace dtsim {

std::unique_ptr<Executor> make_executor(const Scenario& s);

}  // namespace dtsim
