// Reading scaling.json and results.json; the Amdahl and Gustafson laws.
#include "gui/model/scaling.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "gui/model/json_scanner.hpp"
#include "gui/model/trace_model.hpp"

namespace dtsim::gui {
namespace {

nlohmann::json parse_json(const std::string& text, const char* what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw ParseError(std::string(what) + ": " + e.what());
  }
}

double num(const nlohmann::json& j, const char* key, double fallback = 0) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::optional<LawFit> law(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return std::nullopt;
  LawFit f;
  f.p = num(*it, "p");
  f.r2 = num(*it, "r2");
  f.max_speedup = num(*it, "max_speedup");
  if (const auto r = it->find("residuals"); r != it->end() && r->is_array()) {
    for (const auto& v : *r) f.residuals.push_back(v.is_number() ? v.get<double>() : 0.0);
  }
  return f;
}

}  // namespace

double amdahl_speedup(double p, double n) { return 1.0 / ((1.0 - p) + p / n); }
double gustafson_speedup(double p, double n) { return (1.0 - p) + p * n; }

ScalingData parse_scaling(const std::string& text) {
  const auto j = parse_json(text, "scaling.json");
  if (!j.is_object() || !j.contains("points") || !j["points"].is_array())
    throw ParseError("not a scaling.json: no \"points\"");
  ScalingData d;
  d.scenario = j.value("scenario", "");
  d.mode = j.value("mode", "strong");
  d.param = j.value("param", "");
  d.efficiency_threshold = num(j, "efficiency_threshold", 0.8);
  for (const auto& p : j["points"]) {
    ScalingPoint s;
    s.workers = static_cast<int>(num(p, "workers"));
    s.iteration_time_s = num(p, "iteration_time_s");
    s.throughput = num(p, "throughput_samples_per_s");
    s.speedup = num(p, "speedup");
    s.efficiency = num(p, "efficiency");
    if (const auto k = p.find("karp_flatt"); k != p.end() && k->is_number()) s.karp_flatt = k->get<double>();
    d.points.push_back(s);
  }
  d.amdahl = law(j, "amdahl");
  d.gustafson = law(j, "gustafson");
  if (const auto e = j.find("efficiency_below_threshold_at"); e != j.end() && e->is_number())
    d.efficiency_below_threshold_at = e->get<int>();
  return d;
}

void attach_results(ScalingData& data, const std::string& text) {
  const auto j = parse_json(text, "results.json");
  if (!j.is_object() || !j.contains("points")) throw ParseError("not a results.json: no \"points\"");
  for (const auto& p : j["points"]) {
    if (!p.contains("metrics")) continue;
    data.results.emplace_back(static_cast<int>(num(p, "workers")), job_metrics_from_json(p["metrics"]));
  }
}

ScalingData load_sweep(const std::string& folder) {
  const std::filesystem::path dir(folder);
  ScalingData d = parse_scaling(read_file((dir / "scaling.json").string()));
  if (std::filesystem::exists(dir / "results.json")) attach_results(d, read_file((dir / "results.json").string()));
  return d;
}

}  // namespace dtsim::gui
