// Reading metrics.json and computing metric deltas.
#include "gui/model/run_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "gui/model/format.hpp"
#include "gui/model/json_scanner.hpp"
#include "gui/model/trace_model.hpp"

namespace dtsim::gui {
namespace {

double num(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

// A count (ranks, stages, iterations): a whole number from 0 to INT_MAX, else 0 as when missing
// (type_problems names the top-level ones).
bool is_count(double v) { return v >= 0 && v <= std::numeric_limits<int>::max() && v == std::floor(v); }
int count(const nlohmann::json& j, const char* key) {
  const double v = num(j, key);
  return is_count(v) ? static_cast<int>(v) : 0;
}

std::string str(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

MemoryMetrics memory_from_json(const nlohmann::json& j) {
  MemoryMetrics m;
  m.device_bytes = num(j, "device_bytes");
  m.peak_bytes = num(j, "peak_bytes");
  if (const auto it = j.find("fits"); it != j.end() && it->is_boolean()) m.fits = it->get<bool>();
  if (const auto it = j.find("per_stage"); it != j.end() && it->is_array()) {
    for (const auto& s : *it) {
      m.stages.push_back({count(s, "stage"), num(s, "parameters_bytes"), num(s, "gradients_bytes"),
                          num(s, "optimizer_bytes"), num(s, "activations_bytes"), num(s, "communication_bytes"),
                          num(s, "total_bytes"), count(s, "micro_batches_in_flight")});
    }
  }
  return m;
}

}  // namespace

JobMetrics job_metrics_from_json(const nlohmann::json& j) {
  JobMetrics m;
  m.scenario = str(j, "scenario");
  m.job = str(j, "job");
  m.engine = str(j, "engine");
  m.fidelity = str(j, "fidelity");
  m.workers = count(j, "workers");
  m.servers = count(j, "servers");
  m.iterations = count(j, "iterations");
  if (const auto it = j.find("iteration_time_s"); it != j.end() && it->is_object()) {
    m.iteration_mean_s = num(*it, "mean");
    m.iteration_p50_s = num(*it, "p50");
    m.iteration_p95_s = num(*it, "p95");
    m.iteration_p99_s = num(*it, "p99");
  }
  m.throughput = num(j, "throughput_samples_per_s");
  m.compute_fraction = num(j, "compute_fraction");
  m.comm_fraction = num(j, "comm_fraction");
  m.exposed_comm_fraction = num(j, "exposed_comm_fraction");
  m.wait_fraction = num(j, "wait_fraction");
  m.bytes_on_wire = num(j, "bytes_on_wire_per_iteration");
  m.simulated_time_s = num(j, "simulated_time_s");
  m.wall_time_s = num(j, "wall_time_s");
  if (const auto it = j.find("bubble_fraction"); it != j.end() && it->is_number())
    m.bubble_fraction = it->get<double>();
  for (auto [key, slot] : {std::pair{"tokens_per_s_per_device", &m.tokens_per_s_per_device}, std::pair{"mfu", &m.mfu},
                           std::pair{"hfu", &m.hfu}}) {
    if (const auto it = j.find(key); it != j.end() && it->is_number()) *slot = it->get<double>();
  }
  if (const auto it = j.find("wait_by_cause_s"); it != j.end() && it->is_object())
    m.pipeline_bubble_s = num(*it, "pipeline_bubble");
  if (const auto it = j.find("memory"); it != j.end() && it->is_object()) m.memory = memory_from_json(*it);
  if (const auto it = j.find("per_rank"); it != j.end() && it->is_array()) {
    for (const auto& r : *it) {
      const auto stage = r.find("stage");
      m.ranks.push_back({count(r, "rank"), str(r, "role"), count(r, "node"), num(r, "compute_s"), num(r, "comm_s"),
                         num(r, "exposed_comm_s"), num(r, "wait_s"), num(r, "bytes_sent"),
                         stage != r.end() && stage->is_number() ? stage->get<int>() : -1, num(r, "memory_peak_bytes")});
    }
  }
  return m;
}

namespace {

// The fields the views draw whose value has the wrong type (a string where a number goes, ...): they
// would be drawn as 0 or empty, so they are named (docs/outputs.md is the schema).
void type_problems(const nlohmann::json& j, const std::string& where, std::vector<std::string>& out) {
  using T = nlohmann::json::value_t;
  auto expect = [&](const nlohmann::json& obj, const std::string& key, const char* type, bool ok) {
    if (!ok) {
      const std::string path = &obj == &j ? key : "iteration_time_s." + key;
      out.push_back(fmt::format("{}{}: is {}, expected {}", where, path, obj[key].type_name(), type));
    }
  };
  for (const char* key :
       {"throughput_samples_per_s", "comm_fraction", "compute_fraction", "exposed_comm_fraction", "wait_fraction",
        "workers", "servers", "iterations", "simulated_time_s", "wall_time_s", "bytes_on_wire_per_iteration"}) {
    if (j.contains(key)) expect(j, key, "a number", j[key].is_number());
  }
  for (const char* key : {"tokens_per_s_per_device", "mfu", "hfu"}) {  // null where the job has none
    if (j.contains(key)) expect(j, key, "a number or null", j[key].is_number() || j[key].is_null());
  }
  for (const char* key : {"workers", "servers", "iterations"}) {
    if (j.contains(key) && j[key].is_number() && !is_count(j[key].get<double>())) {
      out.push_back(fmt::format("{}{}: is {}, expected a whole number from 0 to {}", where, key, j[key].get<double>(),
                                std::numeric_limits<int>::max()));
    }
  }
  for (const char* key : {"scenario", "job", "engine", "fidelity"}) {
    if (j.contains(key)) expect(j, key, "a string", j[key].is_string());
  }
  if (j.contains("iteration_time_s")) {
    const auto& t = j["iteration_time_s"];
    expect(j, "iteration_time_s", "an object", t.is_object());
    for (const char* key : {"mean", "p50", "p95", "p99"}) {
      if (t.is_object() && t.contains(key)) expect(t, key, "a number", t[key].is_number());
    }
  }
  for (const char* key : {"per_rank", "jobs"}) {
    if (j.contains(key)) expect(j, key, "a list", j[key].type() == T::array);
  }
}

}  // namespace

RunMetrics run_metrics_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("per_rank") || !j.contains("iteration_time_s"))
    throw ParseError("not a metrics.json: no \"per_rank\" or \"iteration_time_s\"");
  RunMetrics r;
  type_problems(j, "metrics.json ", r.problems);
  r.top = job_metrics_from_json(j);
  if (const auto it = j.find("jobs"); it != j.end() && it->is_array()) {
    for (const auto& job : *it) {
      if (!job.is_object()) {
        r.problems.push_back(
            fmt::format("metrics.json jobs.{}: is {}, expected an object", r.jobs.size(), job.type_name()));
        continue;
      }
      type_problems(job, fmt::format("metrics.json jobs.{}.", r.jobs.size()), r.problems);
      r.jobs.push_back(job_metrics_from_json(job));
    }
  }
  if (r.jobs.empty()) r.jobs.push_back(r.top);
  return r;
}

RunMetrics load_run_metrics(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw ParseError(path + ": " + e.what());
  }
  return run_metrics_from_json(j);
}

std::vector<std::string> RunMetrics::job_of_rank() const {
  std::vector<std::string> out;
  if (jobs.size() < 2) return out;
  for (const auto& job : jobs) {
    for (const auto& r : job.ranks) {
      if (r.rank < 0) continue;
      if (out.size() <= static_cast<size_t>(r.rank)) out.resize(r.rank + 1);
      out[r.rank] = job.job;
    }
  }
  return out;
}

const StageMemory* MemoryMetrics::peak_stage() const {
  const StageMemory* best = nullptr;
  for (const auto& s : stages) {
    if (!best || s.total_bytes > best->total_bytes) best = &s;
  }
  return best;
}

double MemoryMetrics::needed_bytes() const {
  const StageMemory* peak = peak_stage();
  return std::max(peak_bytes, peak ? peak->total_bytes : 0.0);
}

bool MemoryMetrics::fits_device() const { return fits && !(device_bytes > 0 && needed_bytes() > device_bytes); }

std::string stage_ranks_label(const JobMetrics& job, int stage) {
  std::vector<int> ranks;
  for (const auto& r : job.ranks) {
    if (r.stage == stage) ranks.push_back(r.rank);
  }
  if (ranks.empty()) return {};
  std::sort(ranks.begin(), ranks.end());
  if (ranks.size() == 1) return fmt::format("rank {}", ranks[0]);
  if (ranks.back() - ranks.front() + 1 == static_cast<int>(ranks.size()))
    return fmt::format("ranks {}-{}", ranks.front(), ranks.back());
  if (ranks.size() <= 4) return fmt::format("ranks {}", fmt::join(ranks, ", "));
  return fmt::format("{} ranks", ranks.size());
}

std::string memory_verdict(const MemoryMetrics& memory) {
  const StageMemory* peak = memory.peak_stage();
  const double need = memory.needed_bytes();
  if (!memory.fits_device()) {
    const auto over = std::count_if(memory.stages.begin(), memory.stages.end(), [&](const StageMemory& s) {
      return memory.device_bytes > 0 && s.total_bytes > memory.device_bytes;
    });
    std::string text = "does not fit (" +
                       (peak ? fmt::format("stage {} needs ", peak->stage) : std::string("a rank needs ")) +
                       format_bytes(need) + " per rank, the device has " + format_bytes(memory.device_bytes);
    if (memory.stages.size() > 1 && over > 0) text += fmt::format("; {} of {} stages over", over, memory.stages.size());
    return text + ")";
  }
  if (memory.device_bytes <= 0) return fmt::format("peak {}", format_bytes(need));
  return fmt::format("peak {} of {} ({:.1f} %): fits", format_bytes(need), format_bytes(memory.device_bytes),
                     100 * need / memory.device_bytes);
}

double MetricDelta::relative() const {
  return a == 0 ? std::numeric_limits<double>::quiet_NaN() : (b - a) / std::fabs(a);
}

std::vector<MetricDelta> metric_deltas(const JobMetrics& a, const JobMetrics& b) {
  std::vector<MetricDelta> out{
      {"iteration time (mean)", "s", a.iteration_mean_s, b.iteration_mean_s},
      {"iteration time (p95)", "s", a.iteration_p95_s, b.iteration_p95_s},
      {"throughput", "samples/s", a.throughput, b.throughput},
      {"compute fraction", "", a.compute_fraction, b.compute_fraction},
      {"exposed communication fraction", "", a.exposed_comm_fraction, b.exposed_comm_fraction},
      {"wait fraction", "", a.wait_fraction, b.wait_fraction},
      {"communication fraction", "", a.comm_fraction, b.comm_fraction},
      {"bytes on wire per iteration", "B", a.bytes_on_wire, b.bytes_on_wire},
      {"workers", "", static_cast<double>(a.workers), static_cast<double>(b.workers)},
      {"servers", "", static_cast<double>(a.servers), static_cast<double>(b.servers)},
  };
  if (a.bubble_fraction || b.bubble_fraction)
    out.push_back({"pipeline bubble fraction", "", a.bubble_fraction.value_or(0), b.bubble_fraction.value_or(0)});
  if (a.memory || b.memory)
    out.push_back(
        {"memory peak per rank", "B", a.memory ? a.memory->peak_bytes : 0, b.memory ? b.memory->peak_bytes : 0});
  return out;
}

}  // namespace dtsim::gui
