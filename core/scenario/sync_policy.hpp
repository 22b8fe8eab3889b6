// The sync policies and their traits, in one table (sync_policy.cpp): the name sync.policy spells,
// the sync.* count the policy reads, how the run summary shows it, and which dtsim-real backends
// run it. The scenario key table parses names through it; warnings, the Learner's results, the
// summary and dtsim-real's refusals print from it. Adding a policy is its entry in sync_policy.cpp
// plus its implementation (its Plan in core/plan/, its Learner rule in learn/) and the cases that
// -Wswitch asks for in the switches over SyncKind (none has a default:).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/scenario/scenario.hpp"

namespace dtsim {

// The sync.* count a policy reads (and shows beside its name).
enum class SyncParameter { None, Staleness, Period, BackupWorkers };

struct SyncPolicyTraits {
  SyncKind kind = SyncKind::Bsp;
  std::string_view name;  // as sync.policy spells it; warnings and convergence results print it too
  SyncParameter parameter = SyncParameter::None;
  // The run summary's strategy line ("SSP (staleness bound {})") and its jobs table's suffix
  // ("ssp({})"; empty: nothing shown), {} standing for the parameter's value.
  std::string_view title;
  std::string_view column;
  bool real_cpu = false;   // dtsim-real --backend cpu runs it
  bool real_cuda = false;  // dtsim-real --backend cuda runs it
};

// Every policy, in the enum's order.
std::span<const SyncPolicyTraits> sync_policies();
const SyncPolicyTraits& sync_policy(SyncKind k);
std::string_view sync_policy_name(SyncKind k);

// The key of a parameter ("sync.staleness"), "" for none.
std::string_view sync_parameter_key(SyncParameter p);
// Its value in a job's sync keys (0 for none).
int sync_parameter_value(SyncParameter p, const SyncSpec& sync);
// One of the policy's patterns (title, column) with the job's parameter value in place of {}.
std::string sync_text(std::string_view pattern, const SyncSpec& sync);
// The name, with the parameter in parentheses when the policy reads one: "bsp", "ssp(2)".
std::string sync_label(const SyncSpec& sync);

}  // namespace dtsim
