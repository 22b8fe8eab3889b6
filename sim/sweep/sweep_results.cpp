// Journal, manifest and result files of a sweep folder.
#include "sim/sweep/sweep_results.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/base/atomic_file.hpp"

namespace dtsim::sweep {
namespace {

std::string in_dir(const std::string& dir, const char* name) { return (std::filesystem::path(dir) / name).string(); }

// Convergence-aware sweeps (run.convergence) add the first job's time and updates to the target loss.
std::string csv_header(const SweepManifest& m, bool convergence) {
  std::string h;
  for (const auto& k : m.param_keys) h += k + ",";
  return fmt::format(
      "{}workers,iteration_time_s,iteration_time_p50_s,iteration_time_p95_s,iteration_time_p99_s,"
      "throughput_samples_per_s,compute_fraction,comm_fraction,exposed_comm_fraction,wait_fraction,"
      "bytes_on_wire_per_iteration,speedup,efficiency{},memory_peak_bytes,fits_memory\n",
      h, convergence ? ",time_to_target_s,updates_to_target" : "");
}

std::string convergence_cells(const nlohmann::json& metrics) {
  if (!metrics.contains("convergence")) return ",,";
  const auto& c = metrics.at("convergence");
  auto cell = [](const nlohmann::json& v) { return v.is_null() ? std::string() : v.dump(); };
  return fmt::format(",{},{}", cell(c.at("time_to_target_s")), cell(c.at("updates_to_target")));
}

std::string csv_row(const SweepPointInfo& p, const nlohmann::json& metrics, const std::optional<ScalingReport>& r,
                    bool convergence) {
  std::string row;
  for (const auto& kv : p.params) row += kv.second + ",";
  const auto& it = metrics.at("iteration_time_s");
  row +=
      fmt::format("{},{},{},{},{},{},{},{},{},{},{}", p.workers, it.at("mean").get<double>(),
                  it.at("p50").get<double>(), it.at("p95").get<double>(), it.at("p99").get<double>(),
                  metrics.at("throughput_samples_per_s").get<double>(), metrics.at("compute_fraction").get<double>(),
                  metrics.at("comm_fraction").get<double>(), metrics.at("exposed_comm_fraction").get<double>(),
                  metrics.at("wait_fraction").get<double>(), metrics.at("bytes_on_wire_per_iteration").get<double>());
  std::string speedup, efficiency;
  if (r) {
    for (const auto& sp : r->points) {
      if (sp.workers != p.workers) continue;
      speedup = fmt::format("{}", sp.speedup);
      efficiency = fmt::format("{}", sp.efficiency);
    }
  }
  // Hybrid jobs: the peak memory per rank, and whether it fits the device (a layout that does not
  // is still timed, and marked here).
  std::string memory = ",";
  if (metrics.contains("memory")) {
    const auto& mem = metrics.at("memory");
    memory = fmt::format("{},{}", mem.at("peak_bytes").get<double>(), mem.at("fits").get<bool>() ? "yes" : "NO");
  }
  return row + "," + speedup + "," + efficiency + (convergence ? convergence_cells(metrics) : "") + "," + memory + "\n";
}

}  // namespace

PointResults read_journal(const std::string& dir) {
  PointResults out;
  std::ifstream in(in_dir(dir, "points.jsonl"));
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("key") || !j.contains("metrics")) continue;  // a torn line
    out[j["key"].get<std::string>()] = j["metrics"];
  }
  return out;
}

Journal::Journal(const std::string& dir) : path_(in_dir(dir, "points.jsonl")) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw RuntimeError(fmt::format("cannot open {}: {}", path_, std::strerror(errno)));
  // A line torn by an earlier interruption must not swallow the next one.
  const off_t size = ::lseek(fd_, 0, SEEK_END);
  if (size > 0) {
    char last = '\n';
    const int rd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (rd >= 0 && ::pread(rd, &last, 1, size - 1) == 1 && last != '\n') append_raw("\n");
    if (rd >= 0) ::close(rd);
  }
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

void Journal::append_raw(const std::string& text) {
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw RuntimeError(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
    off += static_cast<size_t>(n);
  }
}

void Journal::append(const std::string& key, const nlohmann::json& metrics) {
  append_raw(nlohmann::json{{"key", key}, {"metrics", metrics}}.dump() + "\n");
}

void write_manifest(const std::string& dir, const SweepManifest& m) {
  write_file_atomic(in_dir(dir, "sweep.json"), manifest_json(m).dump(2) + "\n");
}

SweepManifest read_manifest(const std::string& dir) {
  std::ifstream in(in_dir(dir, "sweep.json"));
  if (!in) throw InputError(SourceLocation{dir}, "not a sweep folder (no sweep.json)");
  std::stringstream ss;
  ss << in.rdbuf();
  const auto j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded()) throw InputError(SourceLocation{in_dir(dir, "sweep.json")}, "not valid JSON");
  return manifest_from_json(j);
}

namespace {
std::vector<std::string> keys_of(const SweepManifest& m) {
  std::vector<std::string> keys;
  for (const auto& p : m.points) keys.push_back(p.key);
  return keys;
}
}  // namespace

void check_same_sweep(const std::string& dir, const SweepManifest& m) {
  if (!std::filesystem::exists(in_dir(dir, "sweep.json"))) return;
  if (keys_of(read_manifest(dir)) != keys_of(m)) {
    throw InputError(SourceLocation{dir}, "holds the results of a different sweep; choose another --out or remove it");
  }
}

std::optional<ScalingReport> scaling_of(const SweepManifest& m, const PointResults& done) {
  if (m.param_keys.size() != 1) return std::nullopt;
  std::vector<ScalingPoint> points;
  std::set<int> workers;
  for (const auto& p : m.points) {
    const auto found = done.find(p.key);
    if (found == done.end()) continue;
    if (!workers.insert(p.workers).second) return std::nullopt;
    ScalingPoint sp;
    sp.workers = p.workers;
    sp.iteration_time_s = found->second.at("iteration_time_s").at("mean").get<double>();
    sp.throughput_samples_per_s = found->second.at("throughput_samples_per_s").get<double>();
    points.push_back(sp);
  }
  if (points.empty()) return std::nullopt;
  return analyze_scaling(points, m.efficiency_threshold);
}

void write_results(const std::string& dir, const SweepManifest& m, const PointResults& done) {
  const auto report = scaling_of(m, done);
  bool convergence = false;
  for (const auto& [key, metrics] : done) convergence = convergence || metrics.contains("convergence");
  std::string csv = csv_header(m, convergence);
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : m.points) {
    const auto found = done.find(p.key);
    if (found == done.end()) continue;
    csv += csv_row(p, found->second, report, convergence);
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [k, v] : p.params) params[k] = v;
    points.push_back({{"params", params}, {"workers", p.workers}, {"metrics", found->second}});
  }
  const nlohmann::json results{{"schema_version", 1},
                               {"scenario", m.scenario},
                               {"params", m.param_keys},
                               {"mode", scaling_mode_name(m.mode)},
                               {"points", points}};
  write_file_atomic(in_dir(dir, "results.csv"), csv);
  write_file_atomic(in_dir(dir, "results.json"), results.dump(2) + "\n");
  if (report) {
    const nlohmann::json scaling =
        scaling_json(*report, m.scenario, std::string(scaling_mode_name(m.mode)), m.param_keys.front());
    write_file_atomic(in_dir(dir, "scaling.json"), scaling.dump(2) + "\n");
  }
}

PointResults merge_sweeps(const std::string& out, const std::vector<std::string>& shards) {
  if (shards.empty()) throw InputError("dtsim merge: give the shard folders to merge");
  const SweepManifest m = read_manifest(shards.front());
  PointResults done;
  for (const auto& dir : shards) {
    if (keys_of(read_manifest(dir)) != keys_of(m)) {
      throw InputError(SourceLocation{dir}, fmt::format("is a shard of a different sweep than {}", shards.front()));
    }
    for (auto& [key, metrics] : read_journal(dir)) done.emplace(key, std::move(metrics));
  }
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw RuntimeError(fmt::format("cannot create output folder {}: {}", out, ec.message()));
  std::string journal;
  for (const auto& p : m.points) {
    if (const auto found = done.find(p.key); found != done.end()) {
      journal += nlohmann::json{{"key", p.key}, {"metrics", found->second}}.dump() + "\n";
    }
  }
  write_file_atomic(in_dir(out, "points.jsonl"), journal);
  write_manifest(out, m);
  write_results(out, m, done);
  return done;
}

}  // namespace dtsim::sweep
