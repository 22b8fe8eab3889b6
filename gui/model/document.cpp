// Loading documents by kind.
#include "gui/model/document.hpp"

#include <filesystem>

#include "gui/model/json_scanner.hpp"

namespace dtsim::gui {
namespace fs = std::filesystem;

Document load_document(const std::string& path) {
  Document d;
  d.path = path;
  d.kind = detect_file_kind(path);
  const fs::path p(path);
  d.title = p.filename().string();
  if (d.title.empty()) d.title = p.parent_path().filename().string();
  try {
    switch (d.kind) {
      case FileKind::Trace: d.run = RunData{std::make_shared<Trace>(load_trace(path)), std::nullopt}; break;
      case FileKind::Metrics: d.run = RunData{nullptr, load_run_metrics(path)}; break;
      case FileKind::RunFolder: {
        RunData run;
        if (fs::exists(p / "trace.json")) run.trace = std::make_shared<Trace>(load_trace((p / "trace.json").string()));
        if (fs::exists(p / "metrics.json")) run.metrics = load_run_metrics((p / "metrics.json").string());
        d.run = std::move(run);
        break;
      }
      case FileKind::SweepFolder: d.sweep = load_sweep(path); break;
      case FileKind::Scaling: {
        d.sweep = parse_scaling(read_file(path));
        const fs::path results = p.parent_path() / "results.json";
        if (fs::exists(results)) attach_results(*d.sweep, read_file(results.string()));
        break;
      }
      case FileKind::Results:
        if (!fs::exists(p.parent_path() / "scaling.json"))
          throw ParseError("results.json needs scaling.json beside it");
        d.kind = FileKind::SweepFolder;
        d.sweep = load_sweep(p.parent_path().string());
        break;
      case FileKind::TuneFolder:
      case FileKind::Tune: d.tune = load_tune(path); break;
      case FileKind::Scenario: throw ParseError("a scenario must be run first");
      case FileKind::Unknown: {
        std::error_code ec;
        if (!fs::exists(p, ec)) throw ParseError("no such file or folder");
        throw ParseError("not a trace, metrics, run folder, sweep folder, tune folder or scenario");
      }
    }
  } catch (const ParseError& e) {
    throw ParseError(path + ": " + e.what());
  }
  return d;
}

std::vector<std::string> Document::problems() const {
  std::vector<std::string> out;
  if (run && run->trace) out.insert(out.end(), run->trace->problems.begin(), run->trace->problems.end());
  if (run && run->metrics) out.insert(out.end(), run->metrics->problems.begin(), run->metrics->problems.end());
  return out;
}

}  // namespace dtsim::gui
