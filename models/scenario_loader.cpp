// Walks a scenario's YAML against the key table: unknown keys are refused with a suggestion,
// values are parsed with their units, and every error points at file:line:col.
#include "models/scenario_loader.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "models/scenario_schema.hpp"
#include "models/scenario_validate.hpp"
#include "models/suggest.hpp"

namespace dtsim {
namespace {

SourceLocation at(const std::string& file, const YAML::Mark& m) {
  if (m.line < 0) return SourceLocation{file, 0, 0};
  return SourceLocation{file, m.line + 1, m.column + 1};
}

bool is_section(const std::string& path) {
  const std::string prefix = path + ".";
  for (const auto& key : scenario_keys()) {
    if (key.path.compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

// Names valid directly under `prefix` ("" for the top level): the candidates of a suggestion.
std::vector<std::string> children_of(const std::string& prefix) {
  std::set<std::string> names;
  for (const auto& key : scenario_keys()) {
    if (!prefix.empty() && key.path.compare(0, prefix.size() + 1, prefix + ".") != 0) continue;
    const std::string rest = prefix.empty() ? key.path : key.path.substr(prefix.size() + 1);
    names.insert(rest.substr(0, rest.find('.')));
  }
  return {names.begin(), names.end()};
}

[[noreturn]] void unknown_key(const std::string& path, const SourceLocation& where) {
  const size_t dot = path.rfind('.');
  const std::string prefix = dot == std::string::npos ? "" : path.substr(0, dot);
  const std::string leaf = dot == std::string::npos ? path : path.substr(dot + 1);
  throw InputError(where, fmt::format("unknown key '{}'{}", path, did_you_mean(leaf, children_of(prefix))));
}

// `key_at` is where the key is written (for an unknown key), `where` where its value is.
void set_value(Scenario& s, const std::string& path, const std::string& text, const SourceLocation& key_at,
               const SourceLocation& where) {
  const ScenarioKey* key = find_scenario_key(path);
  if (!key) unknown_key(path, key_at);
  key->set(s, ScalarValue(path, text, where));
  s.where[path] = where;
}

void walk(Scenario& s, const YAML::Node& map, const std::string& prefix, const std::string& file) {
  for (const auto& kv : map) {
    const std::string name = kv.first.as<std::string>();
    const std::string path = prefix.empty() ? name : prefix + "." + name;
    const YAML::Node& value = kv.second;
    const SourceLocation where = at(file, kv.first.Mark());
    if (value.IsMap()) {
      if (!is_section(path)) {
        if (find_scenario_key(path)) throw InputError(where, fmt::format("{}: expected a single value, not a mapping", path));
        unknown_key(path, where);
      }
      walk(s, value, path, file);
    } else if (value.IsSequence()) {
      if (!find_scenario_key(path) && !is_section(path)) unknown_key(path, where);
      throw InputError(where, fmt::format("{}: expected a single value, not a list", path));
    } else if (value.IsNull()) {
      if (!find_scenario_key(path) && !is_section(path)) unknown_key(path, where);
      throw InputError(where, fmt::format("{}: has no value", path));
    } else {
      if (is_section(path) && !find_scenario_key(path)) {
        throw InputError(where, fmt::format("{}: is a section; expected keys such as {}", path,
                                            fmt::join(children_of(path), ", ")));
      }
      set_value(s, path, value.as<std::string>(), where, at(file, value.Mark()));
    }
  }
}

void apply_override(Scenario& s, const std::string& text) {
  const SourceLocation where{"--set " + text, 0, 0};
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(where, "expected key.path=value, e.g. --set cluster.nodes=4");
  }
  const std::string path = text.substr(0, eq);
  if (is_section(path) && !find_scenario_key(path)) {
    throw InputError(where, fmt::format("{}: is a section; set one of its keys ({})", path,
                                        fmt::join(children_of(path), ", ")));
  }
  set_value(s, path, text.substr(eq + 1), where, where);
}

}  // namespace

Scenario load_scenario_text(std::string_view text, const std::string& origin,
                            const std::vector<std::string>& overrides) {
  Scenario s;
  s.path = origin;
  for (const auto& key : scenario_keys()) {
    if (!key.default_value.empty()) key.set(s, ScalarValue(key.path, key.default_value, SourceLocation{"(default)"}));
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    throw InputError(at(origin, e.mark), fmt::format("invalid YAML: {}", e.msg));
  }
  if (!root.IsMap()) {
    throw InputError(SourceLocation{origin, 1, 1}, "a scenario is a mapping of keys (model, cluster, strategy, run)");
  }
  walk(s, root, "", origin);
  for (const auto& o : overrides) apply_override(s, o);
  finish_scenario(s);
  return s;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path}, "cannot read the scenario file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return load_scenario_text(buffer.str(), path, overrides);
}

}  // namespace dtsim
