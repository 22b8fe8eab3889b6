// Keys a scenario sets that its sync policy does not use.
#include "core/scenario/warnings.hpp"

#include <fmt/format.h>

#include "core/scenario/sync_policy.hpp"

namespace dtsim {

std::vector<std::string> scenario_warnings(const Scenario& s) {
  std::vector<std::string> out;
  for (size_t j = 0; j < s.jobs.size(); ++j) {
    const SyncKind kind = s.jobs[j].sync.kind;
    for (const SyncPolicyTraits& p : sync_policies()) {  // each policy's parameter, set for another policy
      if (p.parameter == SyncParameter::None) continue;
      const std::string key = s.job_key(j, std::string(sync_parameter_key(p.parameter)));
      if (kind == p.kind || s.where.count(key) == 0) continue;
      out.push_back(fmt::format("{}: warning: {}: ignored under sync.policy {} (it applies to {})",
                                s.location_of(key).str(), key, sync_policy_name(kind), p.name));
    }
  }
  return out;
}

}  // namespace dtsim
