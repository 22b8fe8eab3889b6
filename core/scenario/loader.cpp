// Walks a scenario's YAML against the key table: unknown keys are refused with a suggestion,
// values are parsed with their units, and every error points at file:line:col. Job keys go
// to the single job (top level) or to each entry of a `jobs` list.
#include "core/scenario/loader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/base/available_memory.hpp"
#include "core/base/suggest.hpp"
#include "core/base/text.hpp"
#include "core/scenario/schema.hpp"
#include "core/scenario/validate.hpp"

namespace dtsim {
namespace {

SourceLocation at(const std::string& file, const YAML::Mark& m) {
  if (m.line < 0) return SourceLocation{file, 0, 0};
  return SourceLocation{file, m.line + 1, m.column + 1};
}

bool has_prefix(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// Which keys a mapping may hold: the whole table at the top level, job keys in a jobs entry.
struct Scope {
  bool in_job_list = false;
  bool allows(const ScenarioKey& key) const { return !in_job_list || key.scope == KeyScope::Job; }
};

bool is_section(const std::string& path, Scope scope) {
  for (const auto& key : scenario_keys()) {
    if (scope.allows(key) && has_prefix(key.path, path + ".")) return true;
  }
  return !scope.in_job_list && path == "jobs";
}

const ScenarioKey* find_key(const std::string& path, Scope scope) {
  const ScenarioKey* key = find_scenario_key(path);
  return key && scope.allows(*key) ? key : nullptr;
}

// Names valid directly under `prefix` ("" for the top level): the candidates of a suggestion.
std::vector<std::string> children_of(const std::string& prefix, Scope scope) {
  std::set<std::string> names;
  for (const auto& key : scenario_keys()) {
    if (!scope.allows(key) || (!prefix.empty() && !has_prefix(key.path, prefix + "."))) continue;
    const std::string rest = prefix.empty() ? key.path : key.path.substr(prefix.size() + 1);
    names.insert(rest.substr(0, rest.find('.')));
  }
  if (prefix.empty()) names.insert(scope.in_job_list ? "name" : "jobs");
  return {names.begin(), names.end()};
}

// Outside text must be UTF-8 (YAML 1.2 reads UTF-8; the outputs are JSON): the first byte that is
// not is refused where it stands.
void refuse_non_utf8(std::string_view text, const std::string& file, const std::string& what) {
  const auto bad = first_invalid_utf8(text);
  if (!bad) return;
  const std::string_view before = text.substr(0, *bad);
  const int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  const size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  throw InputError(SourceLocation{file, line, static_cast<int>(*bad - line_start) + 1},
                   fmt::format("{} is not UTF-8 text (byte 0x{:02X}): save it as UTF-8", what,
                               static_cast<unsigned char>(text[*bad])));
}

[[noreturn]] void unknown_key(const std::string& shown, const std::string& path, const SourceLocation& where,
                              Scope scope) {
  const size_t dot = path.rfind('.');
  const std::string prefix = dot == std::string::npos ? "" : path.substr(0, dot);
  const std::string leaf = dot == std::string::npos ? path : path.substr(dot + 1);
  throw InputError(where, fmt::format("unknown key '{}'{}", shown, did_you_mean(leaf, children_of(prefix, scope))));
}

// Keys that are one setting under two names (the short form of a section's main key): a --set of either replaces
// what the file gives under the other (`--set strategy.pipeline=4` over `pipeline: {stages: 2}` runs 4 stages).
constexpr std::pair<const char*, const char*> kTwinKeys[] = {{"strategy.pipeline", "strategy.pipeline.stages"}};

class Walker {
 public:
  Walker(Scenario& s, std::string file) : s_(s), file_(std::move(file)) {}

  // `job` is the job that job keys go to; `shown_prefix` is "" or "jobs.N." for messages.
  void walk(const YAML::Node& map, const std::string& prefix, size_t job, Scope scope) {
    std::map<std::string, SourceLocation> seen;  // a mapping holds each key once (YAML 1.2, 3.2.1.1)
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) {
        throw InputError(at(file_, kv.first.Mark()),
                         fmt::format("a key is a name such as {} (got a {})",
                                     prefix.empty() ? "'model' or 'cluster'" : "'" + prefix + ".<name>'",
                                     kv.first.IsMap()        ? "mapping"
                                     : kv.first.IsSequence() ? "list"
                                                             : "null"));
      }
      const std::string name = kv.first.as<std::string>();
      const std::string path = prefix.empty() ? name : prefix + "." + name;
      const std::string shown = scope.in_job_list ? fmt::format("jobs.{}.{}", job, path) : path;
      const YAML::Node& value = kv.second;
      const SourceLocation where = at(file_, kv.first.Mark());
      if (const auto [first, fresh] = seen.emplace(name, where); !fresh) {
        throw InputError(where, fmt::format("'{}' is given twice in one mapping: here and at line {} (give it once{})",
                                            shown, first->second.line, value.IsMap() ? ", with all its keys" : ""));
      }
      const bool known = find_key(path, scope) != nullptr;
      if (!known && !is_section(path, scope) && !(scope.in_job_list && path == "name")) {
        unknown_key(shown, path, where, scope);
      }
      if (path == "jobs") {
        read_jobs(value, where);
      } else if (value.IsMap()) {
        // A key that is also a section (strategy.pipeline: 8, or strategy.pipeline: {stages: 8, ...}) takes both.
        if (known && !is_section(path, scope)) {
          throw InputError(where, fmt::format("{}: expected a single value, not a mapping", shown));
        }
        walk(value, path, job, scope);
      } else if (value.IsSequence()) {
        throw InputError(where, fmt::format("{}: expected a single value, not a list", shown));
      } else if (value.IsNull()) {
        throw InputError(where, fmt::format("{}: has no value", shown));
      } else if (!known && path != "name") {
        throw InputError(where, fmt::format("{}: is a section; expected keys such as {}", shown,
                                            fmt::join(children_of(path, scope), ", ")));
      } else {
        const std::string text = value.as<std::string>();
        const SourceLocation value_at = at(file_, value.Mark());
        if (scope.in_job_list && path == "name") {
          s_.jobs[job].name = text;
          s_.where[shown] = value_at;
          s_.written[shown] = text;
        } else {
          apply(*find_key(path, scope), job, shown, text, value_at);
        }
      }
    }
  }

  void apply(const ScenarioKey& key, size_t job, const std::string& shown, const std::string& text,
             const SourceLocation& where) {
    const ScalarValue v(shown, text, where);
    if (key.scope == KeyScope::Job) {
      if (job >= s_.jobs.size()) throw InputError(where, fmt::format("{}: there is no job {}", shown, job));
      key.set_job(s_.jobs[job], v);
    } else {
      key.set(s_, v);
    }
    // One setting under two names: the value given last holds, whichever its name, and messages point at it.
    for (const auto& [a, b] : kTwinKeys) {
      for (const auto& [mine, twin] : {std::pair{a, b}, std::pair{b, a}}) {
        const std::string_view name = mine;
        if (shown.size() >= name.size() && shown.compare(shown.size() - name.size(), name.size(), name) == 0) {
          s_.where.erase(shown.substr(0, shown.size() - name.size()) + twin);
          s_.written.erase(shown.substr(0, shown.size() - name.size()) + twin);
        }
      }
    }
    s_.where[shown] = where;
    s_.written[shown] = text;
  }

 private:
  void read_jobs(const YAML::Node& list, const SourceLocation& where) {
    if (!list.IsSequence() || list.size() == 0) {
      throw InputError(where, "jobs: expected a list of jobs, each a mapping with model, strategy, placement, ...");
    }
    s_.job_list = true;
    s_.jobs.assign(list.size(), s_.jobs.front());
    for (size_t i = 0; i < list.size(); ++i) {
      s_.jobs[i].name = fmt::format("job{}", i);
      if (!list[i].IsMap()) throw InputError(at(file_, list[i].Mark()), fmt::format("jobs.{}: expected a mapping", i));
      walk(list[i], "", i, Scope{true});
    }
  }

  Scenario& s_;
  std::string file_;
};

void apply_override(Scenario& s, const std::string& text) {
  const SourceLocation where{"--set " + text, 0, 0};
  if (first_invalid_utf8(text)) throw InputError(where, "is not UTF-8 text: give keys and values in UTF-8");
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(where, "expected key.path=value, e.g. --set cluster.nodes=4");
  }
  std::string path = text.substr(0, eq);
  const std::string shown = path;
  size_t job = 0;
  Scope scope;
  if (s.job_list && has_prefix(path, "jobs.")) {
    const size_t dot = path.find('.', 5);
    try {
      job = std::stoul(path.substr(5, dot - 5));
    } catch (const std::exception&) {
      throw InputError(where, fmt::format("'{}' names no job (use jobs.N.key, N from 0)", shown));
    }
    path = dot == std::string::npos ? "" : path.substr(dot + 1);
    scope.in_job_list = true;
  }
  const ScenarioKey* key = find_key(path, scope);
  if (!key) {
    if (is_section(path, scope)) {
      throw InputError(where, fmt::format("{}: is a section; set one of its keys ({})", shown,
                                          fmt::join(children_of(path, scope), ", ")));
    }
    unknown_key(shown, path, where, scope);
  }
  if (s.job_list && key->scope == KeyScope::Job && !scope.in_job_list) {
    throw InputError(where, fmt::format("{}: this scenario has a jobs list; use jobs.N.{}", shown, path));
  }
  Walker(s, s.path).apply(*key, job, shown, text.substr(eq + 1), where);
}

}  // namespace

Scenario load_scenario_text(std::string_view text, const std::string& origin,
                            const std::vector<std::string>& overrides) {
  Scenario s;
  s.path = origin;
  s.jobs.resize(1);
  for (const auto& key : scenario_keys()) {
    if (key.default_value.empty()) continue;
    const ScalarValue v(key.path, key.default_value, SourceLocation{"(default)"});
    if (key.scope == KeyScope::Job) {
      key.set_job(s.jobs[0], v);
    } else {
      key.set(s, v);
    }
  }
  refuse_non_utf8(text, origin, "the scenario");
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    throw InputError(at(origin, e.mark), fmt::format("invalid YAML: {}", e.msg));
  }
  if (!root.IsMap()) {
    throw InputError(SourceLocation{origin, 1, 1}, "a scenario is a mapping of keys (model, cluster, strategy, run)");
  }
  try {
    Walker(s, origin).walk(root, "", 0, Scope{});
  } catch (const YAML::Exception& e) {  // a shape the walk did not expect: still the user's file
    throw InputError(at(origin, e.mark), fmt::format("unexpected YAML here: {}", e.msg));
  }
  if (s.job_list) {
    for (const auto& [key, where] : s.where) {
      if (const ScenarioKey* k = find_scenario_key(key); k && k->scope == KeyScope::Job) {
        throw InputError(where, fmt::format("{}: with a jobs list, job keys go inside each job", key));
      }
    }
  }
  for (const auto& o : overrides) apply_override(s, o);
  finish_scenario(s);
  return s;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(SourceLocation{path},
                     "this is a directory, not a scenario file (give a .yaml file, e.g. scenarios/quickstart.yaml)");
  }
  if (!std::filesystem::exists(path, ec)) throw InputError(SourceLocation{path}, "no such scenario file");
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path}, "cannot read the scenario file");
  refuse_if_too_big_to_parse(path, "the scenario file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return load_scenario_text(buffer.str(), path, overrides);
}

}  // namespace dtsim
