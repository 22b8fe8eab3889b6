// The readable summary table `dtsim run` prints.
#pragma once

#include <ostream>

#include "models/metrics.hpp"
#include "models/plan.hpp"
#include "models/scenario.hpp"

namespace dtsim::cli {

void print_summary(std::ostream& os, const Scenario& s, const Plan& plan, const Metrics& m);

}  // namespace dtsim::cli
