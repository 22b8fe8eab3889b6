// A run's folder (run_folder.hpp).
#include "core/run/run_folder.hpp"

#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "core/base/atomic_file.hpp"
#include "core/base/error.hpp"
#include "core/run/trace.hpp"

namespace dtsim {

RunFolder::RunFolder(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw RuntimeError(fmt::format("cannot create output folder {}: {}", dir_, ec.message()));
  std::filesystem::remove(path("metrics.json"), ec);  // an earlier run's: this run is not finished yet
}

std::string RunFolder::path(std::string_view file) const { return (std::filesystem::path(dir_) / file).string(); }

void RunFolder::write_trace(const Plan& plan, const std::vector<OpRecord>& records, int cluster_nodes) const {
  write_file_atomic(path("trace.json"),
                    [&](const ChunkSink& sink) { write_trace_json(sink, plan, records, cluster_nodes); });
}

void RunFolder::write(std::string_view file, std::string_view text) const { write_file_atomic(path(file), text); }

void RunFolder::write_metrics(const nlohmann::json& metrics) const {
  write_file_atomic(path("metrics.json"), metrics.dump(2) + "\n");
}

}  // namespace dtsim
