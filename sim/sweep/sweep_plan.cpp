// Expanding and checking a sweep: grid, strong-scaling batches, one loaded Scenario per point.
#include "sim/sweep/sweep_plan.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/base/units.hpp"
#include "core/scenario/loader.hpp"
#include "sim/footprint.hpp"

namespace dtsim::sweep {
namespace {

// What a sweep holds in memory for each of its points, measured (docs/PERFORMANCE.md, "Memory of a sweep's
// points"): its loaded Scenario, about 5.6 KB and 164 B a row of its models' layer tables, and its metrics summary and
// manifest entry once run, about 7.4 KB. Fitted on quickstart (ResNet-50, 174 rows) and synthetic_torus (20 rows) at
// 2,000 and 20,000 points; it over-estimates gpt3_175b_megatron (195 rows) and llama3_70b_fsdp (163) by 8 %.
constexpr double kPointBytes = 13e3;
constexpr double kLayerRowBytes = 164;

// Refuses, before the grid is made, a sweep whose points would not fit in memory: `first` is its first point.
void refuse_if_too_big(const std::vector<SweepParam>& params, const Scenario& first) {
  double points = 1;
  std::vector<std::string> counts;
  for (const SweepParam& p : params) {
    points *= static_cast<double>(p.values.size());
    counts.push_back(fmt::format("{}", p.values.size()));
  }
  double rows = 0;
  for (const JobSpec& job : first.jobs) rows += static_cast<double>(job.workload.layers.size());
  const double per_point = kPointBytes + kLayerRowBytes * rows;
  const sim::Available available = sim::available_memory();
  if (points * per_point <= available.bytes) return;
  throw InputError(fmt::format(
      "--param: the sweep has {:.0f} points ({} values), which would hold about {} in memory ({} a point: its "
      "scenario, {:.0f} layer rows, and its results), more than the {} {}; sweep fewer values",
      points, fmt::join(counts, " x "), format_bytes(points * per_point), format_bytes(per_point), rows,
      format_bytes(available.bytes), available.what));
}

}  // namespace

SweepPlan plan_sweep(const SweepRequest& request) {
  if (request.params.empty()) throw InputError("dtsim sweep: give at least one --param key.path=values");
  if (!(request.efficiency_threshold > 0 && request.efficiency_threshold <= 1)) {
    throw InputError("--efficiency-threshold: expected a fraction in (0, 1], e.g. 0.8");
  }
  std::vector<SweepParam> params;
  for (const auto& text : request.params) {
    params.push_back(parse_sweep_param(text));
    for (size_t i = 0; i + 1 < params.size(); ++i) {
      if (params[i].key == params.back().key) {
        throw InputError(SourceLocation{"--param " + text, 0, 0},
                         fmt::format("{} is swept by two --param options (--param {}); give all its values in one",
                                     params.back().key, request.params[i]));
      }
    }
  }
  std::vector<std::string> base = request.sets;
  if (!request.engine.empty()) base.push_back("run.engine=" + request.engine);

  const auto load = [&](const std::vector<std::string>& sets) {
    return request.text.empty() ? load_scenario(request.scenario, sets)
                                : load_scenario_text(request.text, request.scenario, sets);
  };
  {
    std::vector<std::string> first = base;
    for (const SweepParam& p : params) first.push_back(p.key + "=" + p.values.front());
    refuse_if_too_big(params, load(first));
  }
  SweepPlan plan;
  SweepManifest& m = plan.manifest;
  m.scenario_file = request.scenario;
  m.mode = request.mode;
  m.efficiency_threshold = request.efficiency_threshold;
  for (const auto& p : params) m.param_keys.push_back(p.key);
  for (const auto& overrides : expand_grid(params)) {
    std::vector<std::string> sets = base;
    sets.insert(sets.end(), overrides.begin(), overrides.end());
    plan.scenarios.push_back(load(sets));
    SweepPointInfo info;
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string& o = overrides[i];
      info.params.emplace_back(params[i].key, o.substr(params[i].key.size() + 1));
    }
    info.sets = std::move(sets);
    info.workers = plan.scenarios.back().workers();
    m.points.push_back(std::move(info));
  }
  m.scenario = plan.scenarios.front().name;
  if (request.mode == ScalingMode::Strong) {
    // The baseline is the point with the fewest workers, at the scenario's per-worker batch.
    const auto smallest = std::min_element(m.points.begin(), m.points.end(),
                                           [](const auto& a, const auto& b) { return a.workers < b.workers; });
    const size_t b = static_cast<size_t>(smallest - m.points.begin());
    const long global = static_cast<long>(smallest->workers) * plan.scenarios[b].job().model.batch_per_worker;
    for (size_t i = 0; i < m.points.size(); ++i) {
      SweepPointInfo& p = m.points[i];
      if (global % p.workers != 0) {
        throw InputError(
            fmt::format("--scaling strong: the global batch {} ({} workers x {}) does not divide over {} "
                        "workers (at {})",
                        global, smallest->workers, plan.scenarios[b].job().model.batch_per_worker, p.workers,
                        fmt::join(p.sets, " ")));
      }
      p.sets.push_back(fmt::format("model.batch_per_worker={}", global / p.workers));
      plan.scenarios[i] = load(p.sets);
    }
  }
  for (auto& p : m.points) p.key = fmt::format("{}", fmt::join(p.sets, " "));
  return plan;
}

nlohmann::json manifest_json(const SweepManifest& m) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : m.points) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [k, v] : p.params) params[k] = v;
    points.push_back({{"key", p.key}, {"params", params}, {"sets", p.sets}, {"workers", p.workers}});
  }
  return {
      {"schema_version", 1},    {"scenario_file", m.scenario_file},  {"scenario", m.scenario},
      {"params", m.param_keys}, {"mode", scaling_mode_name(m.mode)}, {"efficiency_threshold", m.efficiency_threshold},
      {"points", points}};
}

SweepManifest manifest_from_json(const nlohmann::json& j) {
  try {
    SweepManifest m;
    m.scenario_file = j.at("scenario_file").get<std::string>();
    m.scenario = j.at("scenario").get<std::string>();
    m.param_keys = j.at("params").get<std::vector<std::string>>();
    m.mode = j.at("mode").get<std::string>() == "strong" ? ScalingMode::Strong : ScalingMode::Weak;
    m.efficiency_threshold = j.at("efficiency_threshold").get<double>();
    for (const auto& p : j.at("points")) {
      SweepPointInfo info;
      info.key = p.at("key").get<std::string>();
      info.sets = p.at("sets").get<std::vector<std::string>>();
      info.workers = p.at("workers").get<int>();
      for (const auto& k : m.param_keys) info.params.emplace_back(k, p.at("params").at(k).get<std::string>());
      m.points.push_back(std::move(info));
    }
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("sweep.json: not a dtsim sweep manifest ({})", e.what()));
  }
}

}  // namespace dtsim::sweep
