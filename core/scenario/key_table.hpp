// KeyTable: how the scenario key table is written (schema.cpp and the *_keys.cpp files), one call a key in the
// order `dtsim keys` and docs/scenarios.md list them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/scenario/schema.hpp"

namespace dtsim {

class KeyTable {
 public:
  // A run key; `def` is text parsed like a user's value, "" for unset.
  void run(std::string path, std::string type, std::string def, std::string doc, RunSetter set);
  // A run key with no default: the scenario, or a preset it names, must give it.
  void required(std::string path, std::string type, std::string doc, RunSetter set);
  // A job key: at the top level for one job, or in each entry of a `jobs` list.
  void job(std::string path, std::string type, std::string def, std::string doc, JobSetter set);

  // The keys, in the order they were added.
  std::vector<ScenarioKey> take() && { return std::move(keys_); }

 private:
  std::vector<ScenarioKey> keys_;
};

}  // namespace dtsim
