// A hand-made calibration profile with compression kernels, for the tests of both engines: the
// round numbers of tests/calibrate/data/profile.yaml (compute 10 us + F / 10 GFLOP/s, sgd_step
// 1 us + B / 10 GB/s, a same_host link) plus kernels of 20 us + x / rate, and their closed forms.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace dtsim::test {

inline constexpr double kKernelFixed = 20e-6;

// The test profile with `kernels` fitted as 20 us + x / `rate`, written to `path`.
inline std::string compression_profile(const std::string& path, const std::vector<std::string>& kernels, double rate) {
  std::ifstream in(std::string(DTSIM_SOURCE_DIR) + "/tests/calibrate/data/profile.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  std::string section = "  compression:\n";
  for (const std::string& k : kernels) {
    section +=
        fmt::format("    {}:\n      - {{min_bytes: 0, fixed_s: {}, rate_Bps: {:.17g}}}\n", k, kKernelFixed, rate);
  }
  const std::string anchor = "  memory_bandwidth_Bps:";
  yaml.replace(yaml.find(anchor), anchor.size(), section + anchor);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << yaml;
  return path;
}

// The closed forms, written from docs/calibration.md apart from the code: a kernel's curve at x
// bytes, and error feedback (6 passes over 4-byte elements) on the profile's sgd_step curve.
inline double kernel_time(double x, double rate) { return kKernelFixed + x / rate; }
inline double feedback_time(double n) { return 1e-6 + 6 * 4 * n / 1e10; }

}  // namespace dtsim::test
