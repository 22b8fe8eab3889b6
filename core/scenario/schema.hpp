// The table of scenario keys: path, type, default, meaning, and how each sets the Scenario.
// The loader, `--set`, `dtsim keys` and docs/scenarios.md all come from this one table.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/scenario/scalar_value.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

// Run keys describe the cluster and the run; job keys (model.*, strategy.*, sync.*,
// placement.*) describe one job, written at the top level for a single job or under each
// entry of a `jobs` list.
enum class KeyScope { Run, Job };

// How a key's value sets the Scenario (run keys) or one job of it (job keys).
using RunSetter = std::function<void(Scenario&, const ScalarValue&)>;
using JobSetter = std::function<void(JobSpec&, const ScalarValue&)>;

struct ScenarioKey {
  std::string path;           // "cluster.nic.rate"
  std::string type;           // for docs: "rate", "count", "one of: ring, ...", ...
  std::string default_value;  // as text, parsed like a user's value; "" when required or unset
  bool required = false;
  std::string doc;
  KeyScope scope = KeyScope::Run;
  RunSetter set;      // Run keys
  JobSetter set_job;  // Job keys
};

const std::vector<ScenarioKey>& scenario_keys();
const ScenarioKey* find_scenario_key(const std::string& path);

// docs/scenarios.md, generated from the table (a test checks the committed file matches).
std::string scenario_keys_markdown();

}  // namespace dtsim
