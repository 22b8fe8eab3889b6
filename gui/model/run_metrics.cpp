// Reading metrics.json and computing metric deltas.
#include "gui/model/run_metrics.hpp"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "gui/model/json_scanner.hpp"
#include "gui/model/trace_model.hpp"

namespace dtsim::gui {
namespace {

double num(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string str(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

JobMetrics job_metrics_from_json(const nlohmann::json& j) {
  JobMetrics m;
  m.scenario = str(j, "scenario");
  m.job = str(j, "job");
  m.engine = str(j, "engine");
  m.fidelity = str(j, "fidelity");
  m.workers = static_cast<int>(num(j, "workers"));
  m.servers = static_cast<int>(num(j, "servers"));
  m.iterations = static_cast<int>(num(j, "iterations"));
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
  if (const auto it = j.find("per_rank"); it != j.end() && it->is_array()) {
    for (const auto& r : *it) {
      m.ranks.push_back({static_cast<int>(num(r, "rank")), str(r, "role"), static_cast<int>(num(r, "node")),
                         num(r, "compute_s"), num(r, "comm_s"), num(r, "exposed_comm_s"), num(r, "wait_s"),
                         num(r, "bytes_sent")});
    }
  }
  return m;
}

RunMetrics run_metrics_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("per_rank") || !j.contains("iteration_time_s"))
    throw ParseError("not a metrics.json: no \"per_rank\" or \"iteration_time_s\"");
  RunMetrics r;
  r.top = job_metrics_from_json(j);
  if (const auto it = j.find("jobs"); it != j.end() && it->is_array()) {
    for (const auto& job : *it) r.jobs.push_back(job_metrics_from_json(job));
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

double MetricDelta::relative() const {
  return a == 0 ? std::numeric_limits<double>::quiet_NaN() : (b - a) / std::fabs(a);
}

std::vector<MetricDelta> metric_deltas(const JobMetrics& a, const JobMetrics& b) {
  return {
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
}

}  // namespace dtsim::gui
