// Reading tune.json strictly; each row's engines and the command line that runs it.
#include "gui/model/tune.hpp"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "gui/model/json_scanner.hpp"
#include "gui/model/trace_model.hpp"

namespace dtsim::gui {
namespace {

using Json = nlohmann::json;

// A field of `j` (the object at `where`) that must be there, of the type `want` names.
const Json& field(const Json& j, const std::string& where, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) throw ParseError(where + key + ": missing");
  return *it;
}

[[noreturn]] void wrong(const std::string& what, const char* want, const Json& got) {
  throw ParseError(what + ": expected " + want + ", got " + (got.is_null() ? "null" : got.type_name()));
}

double number(const Json& j, const std::string& where, const char* key, bool positive = false) {
  const Json& v = field(j, where, key);
  if (!v.is_number()) wrong(where + key, "a number", v);
  const double d = v.get<double>();
  if (d < 0 || (positive && d == 0))
    throw ParseError(where + key + ": expected a " + (positive ? "positive" : "non-negative") + " number, got " +
                     v.dump());
  return d;
}

std::optional<double> optional_number(const Json& j, const std::string& where, const char* key) {
  if (!j.contains(key)) return std::nullopt;
  return number(j, where, key);
}

long whole(const Json& j, const std::string& where, const char* key) {
  const Json& v = field(j, where, key);
  if (!v.is_number_integer() || v.get<long long>() < 0) wrong(where + key, "a whole number", v);
  return static_cast<long>(v.get<long long>());
}

std::string text(const Json& j, const std::string& where, const char* key) {
  const Json& v = field(j, where, key);
  if (!v.is_string()) wrong(where + key, "a string", v);
  return v.get<std::string>();
}

std::vector<std::string> strings(const Json& j, const std::string& where, const char* key) {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  const Json& v = j[key];
  if (!v.is_array()) wrong(where + key, "an array of strings", v);
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) wrong(where + key + "[" + std::to_string(i) + "]", "a string", v[i]);
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

const Json& array(const Json& j, const char* key) {
  const Json& v = field(j, "", key);
  if (!v.is_array()) wrong(key, "an array", v);
  return v;
}

// An engine's message for a layout whose run failed: null where none ("" here).
std::string error_or_none(const Json& j, const std::string& where, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return "";
  return text(j, where, key);
}

// An engine's time of a layout: null (or, before schema_version 1, 0) where that engine did not run it.
double engine_seconds(const Json& j, const std::string& where, const char* key) {
  return field(j, where, key).is_null() ? 0.0 : number(j, where, key);
}

TuneRow parse_row(const Json& r, const std::string& where, int global_batch) {
  if (!r.is_object()) wrong(where.substr(0, where.size() - 1), "an object", r);
  TuneRow row;
  row.layout = text(r, where, "layout");
  row.set = strings(r, where, "set");
  row.devices = static_cast<int>(whole(r, where, "devices"));
  row.global_batch = r.contains("global_batch") ? static_cast<int>(whole(r, where, "global_batch")) : global_batch;
  row.device_seconds_per_sample = number(r, where, "device_seconds_per_sample");
  row.closed_form_s = number(r, where, "closed_form_s", true);
  row.analytical_s = engine_seconds(r, where, "analytical_s");
  row.simgrid_s = engine_seconds(r, where, "simgrid_s");
  row.iteration_time_s = number(r, where, "iteration_time_s", true);
  row.throughput_samples_per_s = number(r, where, "throughput_samples_per_s");
  row.mfu = number(r, where, "mfu");
  row.bubble_fraction = number(r, where, "bubble_fraction");
  row.peak_memory_bytes = number(r, where, "peak_memory_bytes");
  const Json& by_kind = field(r, where, "exposed_comm_by_kind_s");
  // An iteration without exposed communication writes null (an empty nlohmann object is null).
  if (!by_kind.is_null() && !by_kind.is_object()) wrong(where + "exposed_comm_by_kind_s", "an object", by_kind);
  if (by_kind.is_object()) {
    for (const auto& [kind, v] : by_kind.items()) {
      const std::string w = where + "exposed_comm_by_kind_s.";
      row.exposed_comm_by_kind_s.emplace_back(kind, number(by_kind, w, kind.c_str()));
    }
  }
  row.analytical_error = error_or_none(r, where, "analytical_error");
  row.simgrid_error = error_or_none(r, where, "simgrid_error");
  return row;
}

}  // namespace

std::string_view tune_engine_name(TuneEngine e) {
  switch (e) {
    case TuneEngine::ClosedForm: return "closed form";
    case TuneEngine::Analytical: return "analytical";
    case TuneEngine::SimGrid: return "SimGrid";
  }
  return "closed form";
}

std::optional<double> TuneRow::time_on(TuneEngine e) const {
  const double s = e == TuneEngine::SimGrid ? simgrid_s : e == TuneEngine::Analytical ? analytical_s : closed_form_s;
  if (s > 0) return s;
  return std::nullopt;
}

TuneEngine TuneRow::most_exact_engine() const {
  return simgrid_s > 0 ? TuneEngine::SimGrid : analytical_s > 0 ? TuneEngine::Analytical : TuneEngine::ClosedForm;
}

std::optional<double> TuneRow::exposed(const std::string& kind) const {
  for (const auto& [k, s] : exposed_comm_by_kind_s)
    if (k == kind) return s;
  return std::nullopt;
}

bool TuneData::engine_ran(TuneEngine e) const {
  return std::any_of(ranked.begin(), ranked.end(), [e](const TuneRow& r) { return r.time_on(e).has_value(); });
}

std::vector<std::string> TuneData::exposed_kinds() const {
  std::vector<std::string> out;
  for (const TuneRow& r : ranked)
    for (const auto& [kind, s] : r.exposed_comm_by_kind_s)
      if (std::find(out.begin(), out.end(), kind) == out.end()) out.push_back(kind);
  return out;
}

std::vector<std::string> TuneData::run_overrides(size_t i) const {
  const std::vector<std::string>& own = ranked.at(i).set;
  const auto key = [](const std::string& s) { return s.substr(0, s.find('=')); };
  std::vector<std::string> out;
  for (const std::string& s : set) {
    const bool replaced = std::any_of(own.begin(), own.end(), [&](const std::string& o) { return key(o) == key(s); });
    if (!replaced) out.push_back(s);
  }
  out.insert(out.end(), own.begin(), own.end());
  return out;
}

std::string TuneData::run_command(size_t i) const {
  std::string out = "dtsim run " + (scenario_file.empty() ? scenario : scenario_file);
  for (const std::string& s : run_overrides(i)) out += " --set " + s;
  return out;
}

TuneData parse_tune(const std::string& json_text) {
  Json j;
  try {
    j = Json::parse(json_text);
  } catch (const Json::exception& e) {
    std::string what = e.what();
    if (const size_t close = what.find("] "); close != std::string::npos) what = what.substr(close + 2);
    throw ParseError("not valid JSON (" + what + ")");
  }
  if (!j.is_object()) wrong("the file", "an object", j);
  // Files from before the version was written are version 1's fields with 0 for an engine that did not run.
  if (j.contains("schema_version") && whole(j, "", "schema_version") != kTuneSchemaRead) {
    throw ParseError("schema_version: " + j["schema_version"].dump() + ", and this viewer reads " +
                     std::to_string(kTuneSchemaRead) + " (open it with the dtsim that wrote it)");
  }
  TuneData d;
  d.scenario = text(j, "", "scenario");
  if (j.contains("scenario_file")) d.scenario_file = text(j, "", "scenario_file");
  d.set = strings(j, "", "set");
  d.objective = text(j, "", "objective");
  d.devices = static_cast<int>(whole(j, "", "devices"));
  if (j.contains("device_counts")) {
    const Json& counts = array(j, "device_counts");
    for (size_t i = 0; i < counts.size(); ++i) {
      if (!counts[i].is_number_integer() || counts[i].get<long long>() <= 0)
        wrong("device_counts[" + std::to_string(i) + "]", "a positive whole number", counts[i]);
      d.device_counts.push_back(counts[i].get<int>());
    }
  }
  d.global_batch = static_cast<int>(whole(j, "", "global_batch"));
  d.batch_searched = j.contains("tokens_per_step") && !j["tokens_per_step"].is_null();
  if (d.batch_searched) {
    const Json& tokens = array(j, "tokens_per_step");
    if (tokens.size() != 2 || !tokens[0].is_number() || !tokens[1].is_number())
      wrong("tokens_per_step", "[least, most] tokens a step", tokens);
    d.min_tokens = tokens[0].get<double>();
    d.max_tokens = tokens[1].get<double>();
  }
  d.device_memory_bytes = number(j, "", "device_memory_bytes", true);
  d.max_memory_fraction = number(j, "", "max_memory_fraction", true);
  d.layouts = whole(j, "", "layouts");
  d.over_memory = whole(j, "", "over_memory");
  if (d.over_memory > d.layouts)
    throw ParseError("over_memory: " + std::to_string(d.over_memory) + " is more than the " +
                     std::to_string(d.layouts) + " layouts");
  if (j.contains("commonest_overflow")) d.commonest_overflow = text(j, "", "commonest_overflow");
  d.closed_form_seconds = optional_number(j, "", "closed_form_seconds");
  d.engine_seconds = optional_number(j, "", "engine_seconds");
  if (j.contains("simgrid")) {
    if (!j["simgrid"].is_boolean()) wrong("simgrid", "true or false", j["simgrid"]);
    d.simgrid = j["simgrid"].get<bool>();
  }
  const Json& front = array(j, "pareto");
  for (size_t i = 0; i < front.size(); ++i) {
    const std::string where = "pareto[" + std::to_string(i) + "].";
    if (!front[i].is_object()) wrong(where.substr(0, where.size() - 1), "an object", front[i]);
    d.pareto.push_back({number(front[i], where, "peak_memory_bytes"), number(front[i], where, "closed_form_s", true),
                        front[i].contains("global_batch") ? static_cast<int>(whole(front[i], where, "global_batch"))
                                                          : d.global_batch});
  }
  const Json& ranked = array(j, "ranked");
  if (ranked.empty()) throw ParseError("ranked: no layout fits in memory, nothing to show");
  for (size_t i = 0; i < ranked.size(); ++i)
    d.ranked.push_back(parse_row(ranked[i], "ranked[" + std::to_string(i) + "].", d.global_batch));
  return d;
}

TuneData load_tune(const std::string& path) {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (!std::filesystem::is_directory(p, ec)) return parse_tune(read_file(path));
  try {
    return parse_tune(read_file((p / "tune.json").string()));
  } catch (const ParseError& e) {
    throw ParseError(std::string("tune.json: ") + e.what());  // the folder's path comes before it
  }
}

}  // namespace dtsim::gui
