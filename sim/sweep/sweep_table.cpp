#include "sim/sweep/sweep_table.hpp"

#include <functional>

#include <fmt/format.h>

namespace dtsim::sweep {
namespace {

using Json = nlohmann::json;

// A number of the row's metrics, or null where they have none (a job without tokens or FLOPs).
Json field(const SweepRow& r, const char* name) {
  const auto it = r.metrics->find(name);
  return it != r.metrics->end() && it->is_number() ? *it : Json();
}

Json iteration(const SweepRow& r, const char* stat) { return r.metrics->at("iteration_time_s").at(stat); }

Json convergence(const SweepRow& r, const char* name) {
  const auto c = r.metrics->find("convergence");
  return c != r.metrics->end() ? c->at(name) : Json();
}

Json memory(const SweepRow& r, const char* name) {
  const auto mem = r.metrics->find("memory");
  if (mem == r.metrics->end()) return Json();
  if (std::string_view(name) == "fits") return mem->at("fits").get<bool>() ? "yes" : "NO";
  return mem->at(name);
}

struct Column {
  const char* name;
  std::function<Json(const SweepRow&)> cell;
  bool convergence = false;  // only in a sweep that trains the proxy model (run.convergence)
};

// The table's columns after the swept keys, in order.
const std::vector<Column>& columns() {
  static const std::vector<Column> table{
      {"job", [](const SweepRow& r) { return Json(r.metrics->value("job", std::string())); }},
      {"workers", [](const SweepRow& r) { return Json(r.workers); }},
      {"iteration_time_s", [](const SweepRow& r) { return iteration(r, "mean"); }},
      {"iteration_time_p50_s", [](const SweepRow& r) { return iteration(r, "p50"); }},
      {"iteration_time_p95_s", [](const SweepRow& r) { return iteration(r, "p95"); }},
      {"iteration_time_p99_s", [](const SweepRow& r) { return iteration(r, "p99"); }},
      {"throughput_samples_per_s", [](const SweepRow& r) { return field(r, "throughput_samples_per_s"); }},
      {"tokens_per_s", [](const SweepRow& r) { return field(r, "tokens_per_s"); }},
      {"tokens_per_s_per_device", [](const SweepRow& r) { return field(r, "tokens_per_s_per_device"); }},
      {"mfu", [](const SweepRow& r) { return field(r, "mfu"); }},
      {"hfu", [](const SweepRow& r) { return field(r, "hfu"); }},
      {"compute_fraction", [](const SweepRow& r) { return field(r, "compute_fraction"); }},
      {"comm_fraction", [](const SweepRow& r) { return field(r, "comm_fraction"); }},
      {"exposed_comm_fraction", [](const SweepRow& r) { return field(r, "exposed_comm_fraction"); }},
      {"wait_fraction", [](const SweepRow& r) { return field(r, "wait_fraction"); }},
      {"bytes_on_wire_per_iteration", [](const SweepRow& r) { return field(r, "bytes_on_wire_per_iteration"); }},
      {"speedup", [](const SweepRow& r) { return r.scaling ? Json(r.scaling->speedup) : Json(); }},
      {"efficiency", [](const SweepRow& r) { return r.scaling ? Json(r.scaling->efficiency) : Json(); }},
      {"time_to_target_s", [](const SweepRow& r) { return convergence(r, "time_to_target_s"); }, true},
      {"updates_to_target", [](const SweepRow& r) { return convergence(r, "updates_to_target"); }, true},
      {"memory_peak_bytes", [](const SweepRow& r) { return memory(r, "peak_bytes"); }},
      {"fits_memory", [](const SweepRow& r) { return memory(r, "fits"); }},
  };
  return table;
}

std::string csv_cell(const Json& v) {
  if (v.is_null()) return {};
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  if (v.is_number()) return v.dump();
  const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

SweepTable sweep_table(const SweepManifest& m, const PointResults& done, const std::optional<ScalingReport>& report) {
  SweepTable t;
  for (const auto& [key, metrics] : done) {
    t.convergence = t.convergence || metrics.contains("convergence");
    const auto jobs = metrics.find("jobs");
    t.several_jobs = t.several_jobs || (jobs != metrics.end() && jobs->size() > 1);
  }
  t.columns = m.param_keys;
  std::vector<const Column*> used;
  for (const Column& c : columns()) {
    if (c.convergence && !t.convergence) continue;
    t.columns.push_back(c.name);
    used.push_back(&c);
  }
  for (const SweepPointInfo& p : m.points) {
    const auto found = done.find(p.key);
    if (found == done.end()) continue;
    const Json& metrics = found->second;
    const auto jobs = metrics.find("jobs");
    const int count = jobs != metrics.end() && jobs->is_array() && !jobs->empty() ? static_cast<int>(jobs->size()) : 1;
    for (int j = 0; j < count; ++j) {
      SweepRow row;
      row.point = &p;
      row.job = j;
      // A point's top level is its first job's metrics (run_metrics_json), with what a sweep adds (convergence).
      row.metrics = j == 0 ? &metrics : &jobs->at(static_cast<size_t>(j));
      row.workers = j == 0 ? p.workers : row.metrics->value("workers", 0);
      if (report && j == 0) {
        for (const ScalingPoint& sp : report->points) {
          if (sp.workers == p.workers) row.scaling = &sp;
        }
      }
      std::vector<Json> cells;
      for (const auto& [key, value] : p.params) cells.emplace_back(value);
      for (const Column* c : used) cells.push_back(c->cell(row));
      t.rows.push_back(row);
      t.cells.push_back(std::move(cells));
    }
  }
  return t;
}

std::string to_csv(const SweepTable& t) {
  std::string out;
  for (size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + csv_cell(t.columns[c]);
  out += "\n";
  for (const auto& row : t.cells) {
    for (size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + csv_cell(row[c]);
    out += "\n";
  }
  return out;
}

Json rows_json(const SweepTable& t) {
  Json rows = Json::array();
  for (const auto& row : t.cells) {
    Json r = Json::object();
    for (size_t c = 0; c < row.size(); ++c) r[t.columns[c]] = row[c];
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace dtsim::sweep
