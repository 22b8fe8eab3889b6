// Detecting the kind of an opened path.
#include "gui/model/file_kind.hpp"

#include <filesystem>
#include <fstream>

namespace dtsim::gui {
namespace fs = std::filesystem;

namespace {

std::string head(const fs::path& p, size_t n) {
  std::ifstream in(p, std::ios::binary);
  std::string s(n, '\0');
  in.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<size_t>(in.gcount()));
  return s;
}

}  // namespace

FileKind detect_file_kind(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) {
    if (fs::exists(p / "tune.json", ec)) return FileKind::TuneFolder;
    if (fs::exists(p / "scaling.json", ec)) return FileKind::SweepFolder;
    if (fs::exists(p / "metrics.json", ec) || fs::exists(p / "trace.json", ec)) return FileKind::RunFolder;
    return FileKind::Unknown;
  }
  if (!fs::is_regular_file(p, ec)) return FileKind::Unknown;
  const std::string ext = p.extension().string();
  if (ext == ".yaml" || ext == ".yml") return FileKind::Scenario;
  if (ext != ".json") return FileKind::Unknown;
  const std::string name = p.filename().string();
  if (name == "trace.json") return FileKind::Trace;
  if (name == "metrics.json") return FileKind::Metrics;
  if (name == "scaling.json") return FileKind::Scaling;
  if (name == "results.json") return FileKind::Results;
  if (name == "tune.json") return FileKind::Tune;
  const std::string h = head(p, 4096);
  // tune.json's keys come sorted, these two long before its rows (whose iteration_time_s a metrics file has too).
  if (h.find("\"commonest_overflow\"") != std::string::npos && h.find("\"max_memory_fraction\"") != std::string::npos)
    return FileKind::Tune;
  if (h.find("\"traceEvents\"") != std::string::npos) return FileKind::Trace;
  if (h.find("\"amdahl\"") != std::string::npos || h.find("\"efficiency_threshold\"") != std::string::npos)
    return FileKind::Scaling;
  if (h.find("\"params\"") != std::string::npos && h.find("\"points\"") != std::string::npos) return FileKind::Results;
  if (h.find("\"per_rank\"") != std::string::npos || h.find("\"iteration_time_s\"") != std::string::npos)
    return FileKind::Metrics;
  if (!h.empty() && h.find_first_not_of(" \n\r\t") != std::string::npos && h[h.find_first_not_of(" \n\r\t")] == '[')
    return FileKind::Trace;
  return FileKind::Unknown;
}

std::string_view file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::Trace: return "trace";
    case FileKind::Metrics: return "metrics";
    case FileKind::RunFolder: return "run folder";
    case FileKind::SweepFolder: return "sweep folder";
    case FileKind::Scaling: return "scaling.json";
    case FileKind::Results: return "results.json";
    case FileKind::TuneFolder: return "tune folder";
    case FileKind::Tune: return "tune.json";
    case FileKind::Scenario: return "scenario";
    case FileKind::Unknown: return "unknown";
  }
  return "unknown";
}

}  // namespace dtsim::gui
