// Writing a calibration profile as YAML: machine, fitted parameters, residuals, raw measurements.
#pragma once

#include <string>

#include "core/calibration/calibration.hpp"

namespace dtsim {

// The profile as YAML (the format load_calibration_profile reads back).
std::string profile_yaml(const CalibrationProfile& p);

}  // namespace dtsim
