// The readable summary table `dtsim run` prints.
#pragma once

#include <ostream>

#include "core/run/metrics.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim::cli {

void print_summary(std::ostream& os, const Scenario& s, const std::vector<Metrics>& jobs);

}  // namespace dtsim::cli
