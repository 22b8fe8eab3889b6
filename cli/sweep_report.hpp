// What `dtsim sweep` shows a person: the table of points, the fitted laws in words, and the
// speedup and efficiency plots (SVG, and PNG when built with Qt).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/sweep/sweep_results.hpp"

namespace dtsim::cli {

void print_sweep_table(std::ostream& os, const sweep::SweepManifest& m, const sweep::PointResults& done,
                       const std::optional<sweep::ScalingReport>& report);
void print_scaling(std::ostream& os, const sweep::SweepManifest& m, const sweep::ScalingReport& r);
// Writes speedup.svg/png and efficiency.svg/png into DIR; returns the files written.
std::vector<std::string> write_scaling_plots(const std::string& dir, const sweep::SweepManifest& m,
                                             const sweep::ScalingReport& r);

}  // namespace dtsim::cli
