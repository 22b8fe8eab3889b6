// tune.json: the ranked search, as `dtsim tune` writes it last in its folder (cli/tune_command.cpp) and as
// `dtsim.tune` returns it to Python (python/module.cpp). One schema, built here only (docs/outputs.md); its
// reader is the viewer's (gui/model/tune.hpp).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/parallel/layout.hpp"
#include "sim/tune/tuner.hpp"

namespace dtsim::tune {

// tune.json's schema_version: raised when a field changes meaning or goes; a new field keeps it.
inline constexpr int kTuneSchemaVersion = 1;

// What the search was asked about: the scenario's file as the user named it ("" for a scenario given as text) and
// the --set overrides it ran under (the user's, and `--devices N`'s cluster.nodes).
struct TuneSource {
  std::string scenario_file;
  std::vector<std::string> sets;
};

// A layout in one line: "t4 p2 d8 mb1 1f1b v2 rc:selective zero1 sp" (each part only where it says something).
std::string layout_text(const HybridSpec& h);

// The search's tune.json: what was searched, how long each pass took, the Pareto front and every layout that fits,
// best first, with each engine's time (null where that engine did not run it) and its error (null where none).
nlohmann::json tune_json(const TuneResult& r, const TuneRequest& request, const TuneSource& source);

}  // namespace dtsim::tune
