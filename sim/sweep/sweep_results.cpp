// Journal, manifest and result files of a sweep folder.
#include "sim/sweep/sweep_results.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "core/base/atomic_file.hpp"

namespace dtsim::sweep {
namespace {

std::string in_dir(const std::string& dir, const char* name) { return (std::filesystem::path(dir) / name).string(); }

}  // namespace

nlohmann::json without_ranks(nlohmann::json metrics) {
  if (metrics.is_object()) metrics.erase("per_rank");
  if (auto jobs = metrics.find("jobs"); jobs != metrics.end() && jobs->is_array()) {
    for (auto& job : *jobs) {
      if (job.is_object()) job.erase("per_rank");
    }
  }
  return metrics;
}

namespace {

// Each line of DIR's journal, in order, with where it starts.
void for_each_line(const std::string& dir, const std::function<void(const std::string&, std::streamoff)>& each) {
  std::ifstream in(in_dir(dir, "points.jsonl"));
  std::string line;
  std::streamoff at = 0;
  while (std::getline(in, line)) {
    each(line, at);
    at += static_cast<std::streamoff>(line.size()) + 1;
  }
}

// A journal line parsed and checked: the line, or why it is not one to trust.
std::optional<std::string> line_problem(const std::string& text, nlohmann::json& line) {
  line = nlohmann::json::parse(text, nullptr, false);
  if (line.is_discarded()) return "not a whole JSON line (torn when a run was stopped, or damaged)";
  return journal_line_problem(line);
}

// Each line of a journal that can be trusted, in order: its key, its metrics and where the line starts. The others
// are counted in `read` (with the first's number and problem); `read.points` is left to the caller.
void scan_journal(const std::string& dir, JournalRead& read,
                  const std::function<void(const std::string&, nlohmann::json&, std::streamoff)>& line_done) {
  for_each_line(dir, [&](const std::string& text, std::streamoff start) {
    ++read.lines;
    nlohmann::json line;
    if (const auto problem = line_problem(text, line)) {
      if (read.rejected++ == 0) read.first_rejected = fmt::format("line {}: {}", read.lines, *problem);
      return;
    }
    line_done(line["key"].get<std::string>(), line["metrics"], start);
  });
}

// A number the readers take from a point's metrics: finite, at least 0 (more than 0 when `positive`).
std::optional<std::string> number_problem(const nlohmann::json& parent, const std::string& path, const char* name,
                                          bool required, bool positive = false) {
  const auto it = parent.find(name);
  if (it == parent.end()) {
    if (!required) return std::nullopt;
    return fmt::format("its metrics lack {}{}", path, name);
  }
  if (!it->is_number()) return fmt::format("{}{} is {}, not a number", path, name, it->dump());
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0 || (positive && v == 0)) {
    return fmt::format("{}{} is {}, not a {} number", path, name, it->dump(),
                       positive ? "positive" : "finite, non-negative");
  }
  return std::nullopt;
}

// The key of a journal line, read without its metrics when the line starts as Journal::append writes it
// ({"key":"...","metrics":...}); nullopt for a line without one.
std::optional<std::string> line_key(const std::string& line) {
  constexpr std::string_view kStart = R"({"key":")";
  if (line.compare(0, kStart.size(), kStart) == 0) {
    size_t end = kStart.size();
    for (; end < line.size() && line[end] != '"'; ++end) {
      if (line[end] == '\\') ++end;
    }
    if (end < line.size()) {
      const auto key = nlohmann::json::parse(line.begin() + static_cast<std::ptrdiff_t>(kStart.size()) - 1,
                                             line.begin() + static_cast<std::ptrdiff_t>(end) + 1, nullptr, false);
      if (key.is_string()) return key.get<std::string>();
    }
  }
  const auto j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.contains("key") || !j["key"].is_string()) return std::nullopt;
  return j["key"].get<std::string>();
}

// Where each line of the keys in `keys` starts in DIR's journal, in order; the lines are not parsed whole (the
// lines a point's metrics are read from are checked then: journal_metrics).
std::map<std::string, std::vector<std::streamoff>> journal_lines(const std::string& dir, const PointResults& keys) {
  std::map<std::string, std::vector<std::streamoff>> out;
  for_each_line(dir, [&](const std::string& line, std::streamoff start) {
    if (auto key = line_key(line); key && keys.count(*key)) out[std::move(*key)].push_back(start);
  });
  return out;
}

// A point's whole metrics from the last of its journal lines that can be trusted (`starts` in file order), as
// read_journal took them; nullopt if none can.
std::optional<nlohmann::json> journal_metrics(std::ifstream& in, const std::vector<std::streamoff>& starts) {
  std::string text;
  for (auto at = starts.rbegin(); at != starts.rend(); ++at) {
    in.clear();
    in.seekg(*at);
    if (!std::getline(in, text)) continue;
    nlohmann::json line;
    if (!line_problem(text, line)) return std::move(line["metrics"]);
  }
  return std::nullopt;
}

}  // namespace

namespace {

// What the sweep's readers take from one job's metrics (the top level, or an entry of jobs[] under `at`), checked.
std::optional<std::string> job_metrics_problem(const nlohmann::json& m, const std::string& at) {
  const auto times = m.find("iteration_time_s");
  if (times == m.end() || !times->is_object()) return fmt::format("its metrics lack the {}iteration_time_s object", at);
  for (const char* p : {"mean", "p50", "p95", "p99"}) {
    if (auto problem = number_problem(*times, at + "iteration_time_s.", p, true, true)) return problem;
  }
  for (const char* name : {"throughput_samples_per_s", "compute_fraction", "comm_fraction", "exposed_comm_fraction",
                           "wait_fraction", "bytes_on_wire_per_iteration"}) {
    if (auto problem = number_problem(m, at, name, true)) return problem;
  }
  for (const char* name : {"bubble_fraction", "workers"}) {
    if (auto problem = number_problem(m, at, name, false)) return problem;
  }
  if (const auto job = m.find("job"); job != m.end() && !job->is_string()) {
    return fmt::format("{}job is {}, not a text", at, job->dump());
  }
  if (const auto memory = m.find("memory"); memory != m.end()) {
    if (!memory->is_object()) return fmt::format("{}memory is {}, not an object", at, memory->dump());
    if (auto problem = number_problem(*memory, at + "memory.", "peak_bytes", true)) return problem;
    if (const auto fits = memory->find("fits"); fits == memory->end() || !fits->is_boolean())
      return fmt::format("{}memory.fits is not true or false", at);
  }
  if (const auto kinds = m.find("exposed_comm_by_kind_s"); kinds != m.end()) {
    if (!kinds->is_object()) return fmt::format("{}exposed_comm_by_kind_s is {}, not an object", at, kinds->dump());
    for (const auto& [kind, seconds] : kinds->items()) {
      if (auto problem = number_problem(*kinds, at + "exposed_comm_by_kind_s.", kind.c_str(), true)) return problem;
    }
  }
  if (const auto c = m.find("convergence"); c != m.end()) {
    if (!c->is_object()) return fmt::format("{}convergence is {}, not an object", at, c->dump());
    for (const char* name : {"time_to_target_s", "updates_to_target"}) {
      const auto v = c->find(name);
      if (v == c->end()) return fmt::format("its metrics lack {}convergence.{}", at, name);
      if (!v->is_null()) {
        if (auto problem = number_problem(*c, at + "convergence.", name, true)) return problem;
      }
    }
  }
  for (const char* name : {"tokens_per_s", "tokens_per_s_per_device", "mfu", "hfu"}) {
    if (const auto v = m.find(name); v != m.end() && !v->is_null()) {
      if (auto problem = number_problem(m, at, name, true)) return problem;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> journal_line_problem(const nlohmann::json& line) {
  if (!line.is_object() || !line.contains("key") || !line["key"].is_string()) return "no \"key\" text";
  const auto metrics = line.find("metrics");
  if (metrics == line.end() || !metrics->is_object()) return "no \"metrics\" object";
  if (auto problem = job_metrics_problem(*metrics, "")) return problem;
  if (const auto jobs = metrics->find("jobs"); jobs != metrics->end()) {
    if (!jobs->is_array()) return fmt::format("jobs is {}, not a list", jobs->dump());
    for (size_t j = 0; j < jobs->size(); ++j) {
      const auto& job = (*jobs)[j];
      if (!job.is_object()) return fmt::format("jobs[{}] is {}, not an object", j, job.dump());
      if (auto problem = job_metrics_problem(job, fmt::format("jobs[{}].", j))) return problem;
    }
  }
  return std::nullopt;
}

std::string JournalRead::summary(const std::string& journal) const {
  if (rejected == 0) return {};
  return fmt::format(
      "{}: {} of its {} lines cannot be trusted and are left out (the first, {}); a point without a "
      "line to trust is run again",
      journal, rejected, lines, first_rejected);
}

JournalRead read_journal(const std::string& dir, RankDetail detail) {
  JournalRead read;
  scan_journal(dir, read, [&](const std::string& key, nlohmann::json& metrics, std::streamoff) {
    read.points[key] = detail == RankDetail::Summary ? without_ranks(std::move(metrics)) : std::move(metrics);
  });
  return read;
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
  return analyze_scaling(points, m.efficiency_threshold, m.mode);
}

void write_results(const std::string& dir, const SweepManifest& m, const PointResults& done) {
  const auto report = scaling_of(m, done);
  const std::string csv = to_csv(sweep_table(m, done, report));
  // Where each point's lines start in the journal: its whole metrics are read back from its last whole line one
  // point at a time (each line parsed once), and written as results.json's `points` as nlohmann::json::dump(2) of
  // the whole would write them.
  const auto lines_of = journal_lines(dir, done);
  const auto indented = [](const nlohmann::json& j, const std::string& by) {
    std::string text = j.dump(2);
    std::string out = by;
    for (char c : text) {
      out += c;
      if (c == '\n') out += by;
    }
    return out;
  };
  write_file_atomic(in_dir(dir, "results.json"), [&](const ChunkSink& sink) {
    sink(fmt::format("{{\n  \"mode\": {},\n  \"params\": ", nlohmann::json(scaling_mode_name(m.mode)).dump()));
    sink(indented(nlohmann::json(m.param_keys), "  ").substr(2));
    sink(",\n  \"points\": [");
    std::ifstream journal(in_dir(dir, "points.jsonl"));
    bool first = true;
    for (const auto& p : m.points) {
      const auto found = done.find(p.key);
      if (found == done.end()) continue;
      std::optional<nlohmann::json> whole;
      if (const auto lines = lines_of.find(p.key); lines != lines_of.end())
        whole = journal_metrics(journal, lines->second);
      nlohmann::json point{{"params", nlohmann::json::object()}};
      for (const auto& [k, v] : p.params) point["params"][k] = v;
      point["workers"] = p.workers;
      point["metrics"] = whole ? std::move(*whole) : found->second;
      sink(first ? "\n" : ",\n");
      sink(indented(point, "    "));
      first = false;
    }
    sink(first ? "],\n" : "\n  ],\n");
    sink(fmt::format("  \"scenario\": {},\n  \"schema_version\": 1\n}}\n", nlohmann::json(m.scenario).dump()));
  });
  write_file_atomic(in_dir(dir, "results.csv"), csv);
  if (report) {
    const nlohmann::json scaling =
        scaling_json(*report, m.scenario, std::string(scaling_mode_name(m.mode)), m.param_keys.front());
    write_file_atomic(in_dir(dir, "scaling.json"), scaling.dump(2) + "\n");
  }
}

PointResults merge_sweeps(const std::string& out, const std::vector<std::string>& shards,
                          const std::function<void(const std::string&)>& report) {
  if (shards.empty()) throw InputError("dtsim merge: give the shard folders to merge");
  const SweepManifest m = read_manifest(shards.front());
  // Each point from the first shard that has it (that shard's last line for it), kept as a summary; the merged
  // journal copies the points' lines, in the manifest's order, one at a time.
  PointResults done;
  std::map<std::string, std::pair<size_t, std::streamoff>> line_of;  // key -> (shard, where its line starts)
  for (size_t i = 0; i < shards.size(); ++i) {
    const std::string& dir = shards[i];
    if (keys_of(read_manifest(dir)) != keys_of(m)) {
      throw InputError(SourceLocation{dir}, fmt::format("is a shard of a different sweep than {}", shards.front()));
    }
    std::map<std::string, std::pair<std::streamoff, nlohmann::json>> last;
    JournalRead read;  // a shard's damaged lines are left out of the merge, as a resume leaves them out
    scan_journal(dir, read, [&](const std::string& key, nlohmann::json& metrics, std::streamoff at) {
      last.insert_or_assign(key, std::pair{at, without_ranks(std::move(metrics))});
    });
    if (report && read.rejected > 0) report(read.summary(in_dir(dir, "points.jsonl")));
    for (auto& [key, line] : last) {
      if (done.emplace(key, std::move(line.second)).second) line_of.emplace(key, std::pair{i, line.first});
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw RuntimeError(fmt::format("cannot create output folder {}: {}", out, ec.message()));
  std::vector<std::ifstream> journals;
  for (const std::string& dir : shards) journals.emplace_back(in_dir(dir, "points.jsonl"));
  write_file_atomic(in_dir(out, "points.jsonl"), [&](const ChunkSink& sink) {
    std::string line;
    for (const auto& p : m.points) {
      const auto found = line_of.find(p.key);
      if (found == line_of.end()) continue;
      std::ifstream& in = journals[found->second.first];
      in.clear();
      in.seekg(found->second.second);
      if (!std::getline(in, line)) throw RuntimeError(fmt::format("cannot read {} again", shards[found->second.first]));
      sink(line + "\n");
    }
  });
  write_manifest(out, m);
  write_results(out, m, done);
  return done;
}

}  // namespace dtsim::sweep
