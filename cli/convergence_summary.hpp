// The convergence table `dtsim run` prints when run.convergence.enabled is on.
#pragma once

#include <ostream>
#include <vector>

#include "core/scenario/scenario.hpp"
#include "learn/training.hpp"

namespace dtsim::cli {

void print_convergence(std::ostream& os, const Scenario& s, const std::vector<learn::ConvergenceResult>& results);

}  // namespace dtsim::cli
