// Keys a scenario sets that its sync policy does not use.
#include "core/scenario/warnings.hpp"

#include <fmt/format.h>

namespace dtsim {
namespace {

struct PolicyKey {
  const char* key;
  SyncKind uses;
  const char* policy;
};

constexpr PolicyKey kPolicyKeys[] = {
    {"sync.staleness", SyncKind::Ssp, "ssp"},
    {"sync.period", SyncKind::LocalSgd, "local_sgd"},
    {"sync.backup_workers", SyncKind::Backup, "backup"},
};

const char* policy_name(SyncKind k) {
  switch (k) {
    case SyncKind::Bsp: return "bsp";
    case SyncKind::Asp: return "asp";
    case SyncKind::Ssp: return "ssp";
    case SyncKind::LocalSgd: return "local_sgd";
    case SyncKind::Backup: return "backup";
    case SyncKind::Gossip: return "gossip";
  }
  return "?";
}

}  // namespace

std::vector<std::string> scenario_warnings(const Scenario& s) {
  std::vector<std::string> out;
  for (size_t j = 0; j < s.jobs.size(); ++j) {
    const SyncKind kind = s.jobs[j].sync.kind;
    for (const PolicyKey& p : kPolicyKeys) {
      const std::string key = s.job_key(j, p.key);
      if (kind == p.uses || s.where.count(key) == 0) continue;
      out.push_back(fmt::format("{}: warning: {}: ignored under sync.policy {} (it applies to {})",
                                s.location_of(key).str(), key, policy_name(kind), p.policy));
    }
  }
  return out;
}

}  // namespace dtsim
