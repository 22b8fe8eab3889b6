// A sweep's points, validated before anything runs: each point's overrides go through the
// scenario loader's `--set` path, so a bad key or value fails with the loader's own error line.
// The manifest (sweep.json) records the points so shards can be merged without the scenario.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/scenario/scenario.hpp"
#include "sim/sweep/scaling_fit.hpp"
#include "sim/sweep/sweep_param.hpp"

namespace dtsim::sweep {

struct SweepRequest {
  std::string scenario;             // file
  std::string text;                 // the scenario's YAML when not read from `scenario` (which then names it)
  std::vector<std::string> sets;    // fixed overrides (--set), applied before the params
  std::vector<std::string> params;  // --param texts
  ScalingMode mode = ScalingMode::Weak;
  std::string engine;  // "" = the scenario's run.engine
  double efficiency_threshold = 0.8;
};

struct SweepPointInfo {
  std::vector<std::pair<std::string, std::string>> params;  // swept key -> value, in --param order
  std::vector<std::string> sets;                            // every override the point runs with
  std::string key;                                          // identifies the point in journals
  int workers = 0;
};

struct SweepManifest {
  std::string scenario_file;
  std::string scenario;  // the scenario's name
  std::vector<std::string> param_keys;
  ScalingMode mode = ScalingMode::Weak;
  double efficiency_threshold = 0.8;
  std::vector<SweepPointInfo> points;  // grid order
};

struct SweepPlan {
  SweepManifest manifest;
  std::vector<Scenario> scenarios;  // one per point, loaded and checked
};

// Loads and checks every point; throws InputError before any simulation for any mistake.
SweepPlan plan_sweep(const SweepRequest& request);

nlohmann::json manifest_json(const SweepManifest& m);
SweepManifest manifest_from_json(const nlohmann::json& j);  // throws InputError if malformed

}  // namespace dtsim::sweep
