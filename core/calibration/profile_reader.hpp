// Reading a calibration profile (YAML, as `dtsim calibrate` writes it). A bad profile is refused
// with one line: file:line:col, the key and what would be valid.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/calibration/calibration.hpp"

namespace dtsim {

// Loads and checks a profile. Throws InputError with file:line:col, the key and what is valid
// when the file is missing, is not YAML, lacks a key, holds a bad value, or was measured on
// another backend than `expected_backend` (nothing accepts any).
std::shared_ptr<const CalibrationProfile> load_calibration_profile(
    const std::string& path, std::optional<Backend> expected_backend = std::nullopt);

}  // namespace dtsim
