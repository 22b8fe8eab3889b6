// Keys a scenario sets that its sync policy, or its Chakra traces, do not use.
#include "core/scenario/warnings.hpp"

#include <fmt/format.h>

#include "core/scenario/sync_policy.hpp"

namespace dtsim {

namespace {

// A job replaying Chakra traces takes its work and communication from them: of the model and strategy
// keys it reads model.batch_per_worker (samples), model.dtype (roofline) and the collectives' algorithm.
bool chakra_ignores(const std::string& key) {
  static constexpr const char* kRead[] = {"model.batch_per_worker", "model.dtype", "strategy.allreduce.algorithm"};
  for (const char* read : kRead) {
    if (key == read) return false;
  }
  for (const char* prefix : {"model.", "strategy.", "compression.", "sync."}) {
    if (key.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> scenario_warnings(const Scenario& s) {
  std::vector<std::string> out;
  if (!s.job_list && !s.job().chakra.prefix.empty()) {
    for (const auto& [key, where] : s.where) {
      if (chakra_ignores(key)) {
        out.push_back(fmt::format("{}: warning: {}: ignored by a job replaying Chakra traces (workload.chakra)",
                                  where.str(), key));
      }
    }
  }
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
  for (size_t j = 0; j < s.jobs.size(); ++j) {  // a config's longest sequence, taken as the one trained on
    const std::string config = s.job_key(j, "model.hf_config");
    if (s.where.count(config) == 0 || s.where.count(s.job_key(j, "model.transformer.seq_len")) > 0) continue;
    out.push_back(
        fmt::format("{}: warning: {}: the sequence is the config's longest, {} tokens; set "
                    "model.transformer.seq_len to the sequence you train on",
                    s.location_of(config).str(), config, s.jobs[j].model.transformer.seq_len));
  }
  return out;
}

}  // namespace dtsim
