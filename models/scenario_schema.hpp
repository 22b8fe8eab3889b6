// The table of scenario keys: path, type, default, meaning, and how each sets the Scenario.
// The loader, `--set`, `dtsim keys` and docs/scenarios.md all come from this one table.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "models/scenario.hpp"
#include "models/units.hpp"

namespace dtsim {

// A scalar as written in the file or on the command line, with where it was written.
class ScalarValue {
 public:
  ScalarValue(std::string key, std::string text, SourceLocation where)
      : key_(std::move(key)), text_(std::move(text)), where_(std::move(where)) {}

  const std::string& text() const { return text_; }
  const SourceLocation& where() const { return where_; }

  double quantity(Quantity q) const;
  double positive(Quantity q) const;  // > 0
  int count(int min_value) const;     // whole number >= min_value
  bool boolean() const;               // true/false, yes/no, on/off
  std::vector<int> dims() const;      // "4x4x2"
  std::vector<int> indices() const;   // "0,5,7" (may be empty)
  double at_least(double min_value) const;  // a number >= min_value
  DeviceSpec device() const;          // a device zoo name
  std::vector<std::pair<std::string, int>> device_counts() const;  // "a100_40gb:2,v100_16gb:2"
  template <typename E>
  E choice(const std::vector<std::pair<std::string, E>>& options) const;

  [[noreturn]] void fail(const std::string& message) const;

 private:
  [[noreturn]] void fail_choice(const std::vector<std::string>& names) const;
  std::string key_;
  std::string text_;
  SourceLocation where_;
};

template <typename E>
E ScalarValue::choice(const std::vector<std::pair<std::string, E>>& options) const {
  std::vector<std::string> names;
  for (const auto& [name, value] : options) {
    if (name == text_) return value;
    names.push_back(name);
  }
  fail_choice(names);
}

// Run keys describe the cluster and the run; job keys (model.*, strategy.*, sync.*,
// placement.*) describe one job, written at the top level for a single job or under each
// entry of a `jobs` list.
enum class KeyScope { Run, Job };

struct ScenarioKey {
  std::string path;           // "cluster.nic.rate"
  std::string type;           // for docs: "rate", "count", "one of: ring, ...", ...
  std::string default_value;  // as text, parsed like a user's value; "" when required or unset
  bool required = false;
  std::string doc;
  KeyScope scope = KeyScope::Run;
  std::function<void(Scenario&, const ScalarValue&)> set;     // Run keys
  std::function<void(JobSpec&, const ScalarValue&)> set_job;  // Job keys
};

const std::vector<ScenarioKey>& scenario_keys();
// The `faults.*` job keys (models/faults_keys.cpp), appended to the table.
void add_fault_keys(std::vector<ScenarioKey>& keys);
// The `run.convergence.*` keys (models/convergence_keys.cpp), appended to the table.
void add_convergence_keys(std::vector<ScenarioKey>& keys);
const ScenarioKey* find_scenario_key(const std::string& path);

// docs/scenarios.md, generated from the table (a test checks the committed file matches).
std::string scenario_keys_markdown();

}  // namespace dtsim
