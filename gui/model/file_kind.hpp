// What a path the user opens is: a trace, a metrics file, a run folder, a sweep folder, a tune
// folder (what `dtsim tune` writes) or its tune.json, or a scenario to run. Decided by name and, for other .json files,
// by their first bytes.
#pragma once

#include <string>
#include <string_view>

namespace dtsim::gui {

enum class FileKind { Unknown, Trace, Metrics, RunFolder, SweepFolder, Scaling, Results, TuneFolder, Tune, Scenario };

FileKind detect_file_kind(const std::string& path);
std::string_view file_kind_name(FileKind kind);

}  // namespace dtsim::gui
