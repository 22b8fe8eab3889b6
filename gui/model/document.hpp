// Whatever the user opened, loaded: a run (a trace and/or metrics, from files or a run folder),
// a sweep (scaling.json and results.json) or a tune (tune.json). Scenarios are run first (ScenarioRunner) and their
// output folder is loaded as a run.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "gui/model/file_kind.hpp"
#include "gui/model/run_metrics.hpp"
#include "gui/model/scaling.hpp"
#include "gui/model/trace_model.hpp"
#include "gui/model/tune.hpp"

namespace dtsim::gui {

struct RunData {
  std::shared_ptr<const Trace> trace;  // null when only metrics were opened
  std::optional<RunMetrics> metrics;
};

struct Document {
  FileKind kind = FileKind::Unknown;
  std::string path;
  std::string title;  // for tabs and window titles
  std::optional<RunData> run;
  std::optional<ScalingData> sweep;
  std::optional<TuneData> tune;
  // What was malformed in its files and left out or read as empty (Trace::problems, RunMetrics::problems).
  std::vector<std::string> problems() const;
};

// Loads any kind but a scenario; throws ParseError with the path in the message.
Document load_document(const std::string& path);

}  // namespace dtsim::gui
