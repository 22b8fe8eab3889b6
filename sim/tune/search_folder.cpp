// A search's folder: search.json and the journal of its engine runs (search_folder.hpp).
#include "sim/tune/search_folder.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/base/atomic_file.hpp"
#include "core/base/error.hpp"
#include "models/parallel/schedule.hpp"

namespace dtsim::tune {
namespace {

std::string in_dir(const std::string& dir, const char* name) { return (std::filesystem::path(dir) / name).string(); }

// FNV-1a, 64 bits: enough to tell an edited scenario file from the one a search began with.
std::string digest(const std::string& text) {
  uint64_t h = 14695981039346656037ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// DIR's search.json, or null when it has none.
nlohmann::json read_search(const std::string& dir) {
  const std::string path = in_dir(dir, "search.json");
  if (!std::filesystem::exists(path)) return nullptr;
  auto j = nlohmann::json::parse(read_text(path), nullptr, false);
  if (j.is_discarded()) throw InputError(SourceLocation{path}, "not valid JSON");
  return j;
}

}  // namespace

nlohmann::json search_json(const std::string& scenario_file, const std::vector<std::string>& sets,
                           const TuneRequest& request) {
  const LayoutLimits& l = request.limits;
  nlohmann::json schedules = nlohmann::json::array(), recomputes = nlohmann::json::array();
  for (const PipelineSchedule s : l.schedules) schedules.push_back(std::string(schedule_name(s)));
  for (const Recompute r : l.recomputes) recomputes.push_back(std::string(recompute_name(r)));
  return {{"scenario_file", scenario_file},
          {"scenario_digest", digest(read_text(scenario_file))},
          {"set", sets},
          {"objective", std::string(objective_name(request.objective))},
          {"max_memory_fraction", request.max_memory_fraction},
          {"limits",
           {{"global_batch", l.global_batch},
            {"min_tokens", l.min_tokens},
            {"max_tokens", l.max_tokens},
            {"max_tensor", l.max_tensor},
            {"max_context", l.max_context},
            {"max_pipeline", l.max_pipeline},
            {"max_micro_batch", l.max_micro_batch},
            {"max_virtual_stages", l.max_virtual_stages},
            {"tensor", l.tensor},
            {"pipeline", l.pipeline},
            {"context", l.context},
            {"expert", l.expert},
            {"micro_batch", l.micro_batch},
            {"zero", l.zero},
            {"schedules", schedules},
            {"recomputes", recomputes},
            {"rank_orders", l.rank_orders}}}};
}

sweep::JournalRead kept_runs(const std::string& dir, const nlohmann::json& search) {
  const nlohmann::json kept = read_search(dir);
  if (kept.is_null()) return {};
  if (kept != search) {
    throw InputError(SourceLocation{dir},
                     "holds the runs of a different search (scenario, --set, --devices, constraints or objective); "
                     "choose another --out or remove it");
  }
  return sweep::read_journal(dir);
}

void claim_search_folder(const std::string& dir, const nlohmann::json& search) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw RuntimeError(fmt::format("cannot create output folder {}: {}", dir, ec.message()));
  write_file_atomic(in_dir(dir, "search.json"), search.dump(2) + "\n");
}

sweep::JournalRead merge_search_folders(const std::string& out, const std::vector<std::string>& shards,
                                        const nlohmann::json& search) {
  sweep::JournalRead merged;
  sweep::PointResults& runs = merged.points;
  const auto count = [&merged](const std::string& dir, const sweep::JournalRead& read) {
    if (read.rejected > 0 && merged.rejected == 0)
      merged.first_rejected =
          fmt::format("{}, {}", (std::filesystem::path(dir) / "points.jsonl").string(), read.first_rejected);
    merged.lines += read.lines;
    merged.rejected += read.rejected;
  };
  for (const std::string& dir : shards) {
    const nlohmann::json kept = read_search(dir);
    if (kept.is_null()) throw InputError(SourceLocation{dir}, "not a folder of dtsim tune (no search.json)");
    if (kept != search) {
      throw InputError(SourceLocation{dir},
                       "is a shard of a different search (scenario, --set, --devices, constraints or objective)");
    }
    sweep::JournalRead read = sweep::read_journal(dir);
    count(dir, read);
    for (auto& [key, metrics] : read.points) runs.emplace(key, std::move(metrics));
  }
  sweep::JournalRead kept = kept_runs(out, search);
  count(out, kept);
  for (auto& [key, metrics] : kept.points) runs.insert_or_assign(key, std::move(metrics));
  claim_search_folder(out, search);
  std::string journal;
  for (const auto& [key, metrics] : runs) journal += nlohmann::json{{"key", key}, {"metrics", metrics}}.dump() + "\n";
  write_file_atomic(in_dir(out, "points.jsonl"), journal);
  return merged;
}

}  // namespace dtsim::tune
