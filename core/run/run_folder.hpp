// A run's folder (docs/outputs.md), as the simulator (`dtsim run`), dtsim-real and `dtsim validate` write
// it: trace.json and the run's other files first, metrics.json last, since a metrics.json marks a finished
// run. Opening the folder removes a metrics.json an earlier run left there, so that a run killed while it
// writes never leaves its files beside an older run's metrics. Every file goes to disk whole or not at all
// (write_file_atomic).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/plan/plan.hpp"
#include "core/run/observer.hpp"

namespace dtsim {

class RunFolder {
 public:
  // Creates `dir` (and its parents) and removes its metrics.json; RuntimeError naming the folder when it
  // cannot be created.
  explicit RunFolder(std::string dir);

  const std::string& dir() const { return dir_; }
  std::string path(std::string_view file) const;  // dir/file

  // trace.json (core/run/trace.hpp), streamed to disk as it is made.
  void write_trace(const Plan& plan, const std::vector<OpRecord>& records, int cluster_nodes) const;
  // Another file of the run (convergence.csv, ...).
  void write(std::string_view file, std::string_view text) const;
  // metrics.json, last: the run is finished.
  void write_metrics(const nlohmann::json& metrics) const;

 private:
  std::string dir_;
};

}  // namespace dtsim
