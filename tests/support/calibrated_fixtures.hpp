// What the calibrated-engine tests share: the hand-made profile's closed forms, profiles edited
// from it, and dtsim runs read back (iteration time, per-op durations from trace.json).
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "run_process.hpp"

namespace dtsim::test {

inline const std::string kCalibScenario = std::string(DTSIM_SOURCE_DIR) + "/tests/calibrate/data/ring2.yaml";
inline const std::string kCalibProfile = std::string(DTSIM_SOURCE_DIR) + "/tests/calibrate/data/profile.yaml";

// The profile's same_host link: 2 us + S / 1 GB/s below 64 KiB, 10 us + S / 4 GB/s from it.
inline double link_time(double s) { return s < 65536 ? 2e-6 + s / 1e9 : 10e-6 + s / 4e9; }

// One bucket of 400 KB: 4 forward ops of 1 MFLOP, 4 backward of 2, the SGD update's streaming loop.
inline constexpr double kForwardOp = 10e-6 + 1e6 / 1e10;
inline constexpr double kBackwardOp = 10e-6 + 2e6 / 1e10;
inline constexpr double kCompute = 4 * kForwardOp + 4 * kBackwardOp;
inline constexpr double kUpdate = 1e-6 + 1.2e6 / 1e10;

// `base` (the hand-made profile by default) with each anchor replaced by its text, in a temporary folder.
inline std::string edited_profile(const std::string& tag, const std::vector<std::pair<std::string, std::string>>& edits,
                                  const std::string& base = kCalibProfile) {
  std::string yaml = slurp(base);
  for (const auto& [anchor, text] : edits) {
    const auto at = yaml.find(anchor);
    if (at == std::string::npos) throw std::runtime_error("edited_profile: no '" + anchor + "' in " + base);
    yaml.replace(at, anchor.size(), text);
  }
  const std::string path = temp_dir("profile-" + tag) + "/profile.yaml";
  std::ofstream(path) << yaml;
  return path;
}

inline std::string edited_profile(const std::string& tag, const std::string& anchor, const std::string& text) {
  return edited_profile(tag, {{anchor, text}});
}

// A `dtsim run` of `scenario` on `engine` with `sets`; its metrics and, with a trace, its folder.
struct CalibratedRun {
  double iteration = 0;  // mean iteration time, s
  std::string dir;
  // Durations (s) of the ops of `kind` ("send", "recv", "update", "compute") whose trace category
  // (forward, backward, ...) is `cat` ("" for any), from the iterations after the warm-up.
  std::vector<double> durations(const std::string& kind, const std::string& cat = "", int warmup = 0) const {
    const auto trace = nlohmann::json::parse(slurp(dir + "/trace.json"));
    std::vector<double> out;
    for (const auto& e : trace.at("traceEvents")) {
      if (e.value("ph", "") != "X" || !e.contains("args")) continue;
      const auto& a = e.at("args");
      if (a.value("kind", "") != kind || a.value("iteration", 0) < warmup) continue;
      if (!cat.empty() && e.value("cat", "") != cat) continue;
      out.push_back(e.at("dur").get<double>() * 1e-6);  // Chrome traces are in microseconds
    }
    return out;
  }
};

inline CalibratedRun run_calibrated(const std::string& scenario, const std::string& engine, const std::string& sets,
                                    const std::string& tag, bool trace = false) {
  CalibratedRun run;
  run.dir = temp_dir("calib-" + tag);
  const auto r = run_dtsim("run '" + scenario + "' --json --engine " + engine + (trace ? "" : " --no-trace") +
                               " --out '" + run.dir + "' " + sets,
                           tag);
  if (r.code != 0) throw std::runtime_error("dtsim run failed (" + tag + "): " + r.err);
  run.iteration = nlohmann::json::parse(r.out).at("iteration_time_s").at("mean").get<double>();
  return run;
}

}  // namespace dtsim::test
