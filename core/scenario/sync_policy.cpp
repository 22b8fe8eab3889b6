// The table of sync policies: one entry per policy, each with its traits (sync_policy.hpp).
#include "core/scenario/sync_policy.hpp"

#include <array>
#include <optional>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim {
namespace {

// The entries. -Wswitch flags a policy without one. dtsim-real runs neither backup workers nor
// gossip (simulator only); its cuda backend has no asynchronous servers (they would need
// device-side RMA).
constexpr std::optional<SyncPolicyTraits> entry(SyncKind k) {
  using enum SyncKind;
  using P = SyncParameter;
  using T = SyncPolicyTraits;
  switch (k) {
    // name, parameter, the summary's title and column, dtsim-real --backend cpu and cuda
    case Bsp: return T{k, "bsp", P::None, "BSP", "", true, true};
    case Asp: return T{k, "asp", P::None, "ASP", "asp", true, false};
    case Ssp: return T{k, "ssp", P::Staleness, "SSP (staleness bound {})", "ssp({})", true, false};
    case LocalSgd:
      return T{k, "local_sgd", P::Period, "local SGD (average every {})", "local SGD every {}", true, true};
    case Backup: return T{k, "backup", P::BackupWorkers, "BSP with {} backup workers", "{} backup", false, false};
    case Gossip: return T{k, "gossip", P::None, "gossip (AD-PSGD)", "gossip", false, false};
  }
  return std::nullopt;  // past the last policy
}

// The policies are the enumerators from 0 up to the first without an entry.
constexpr size_t count_policies() {
  size_t n = 0;
  while (entry(static_cast<SyncKind>(n))) ++n;
  return n;
}

constexpr std::array<SyncPolicyTraits, count_policies()> kTable = [] {
  std::array<SyncPolicyTraits, count_policies()> table{};
  for (size_t i = 0; i < table.size(); ++i) table[i] = *entry(static_cast<SyncKind>(i));
  return table;
}();

}  // namespace

std::span<const SyncPolicyTraits> sync_policies() { return kTable; }

const SyncPolicyTraits& sync_policy(SyncKind k) {
  const auto i = static_cast<size_t>(k);
  if (i >= kTable.size()) throw RuntimeError(fmt::format("sync policy {} has no entry", i));
  return kTable[i];
}

std::string_view sync_policy_name(SyncKind k) { return sync_policy(k).name; }

std::string_view sync_parameter_key(SyncParameter p) {
  switch (p) {
    case SyncParameter::None: return "";
    case SyncParameter::Staleness: return "sync.staleness";
    case SyncParameter::Period: return "sync.period";
    case SyncParameter::BackupWorkers: return "sync.backup_workers";
  }
  return "";
}

int sync_parameter_value(SyncParameter p, const SyncSpec& sync) {
  switch (p) {
    case SyncParameter::None: return 0;
    case SyncParameter::Staleness: return sync.staleness;
    case SyncParameter::Period: return sync.period;
    case SyncParameter::BackupWorkers: return sync.backup_workers;
  }
  return 0;
}

std::string sync_text(std::string_view pattern, const SyncSpec& sync) {
  std::string out(pattern);
  const size_t at = out.find("{}");
  if (at != std::string::npos) {
    out.replace(at, 2, fmt::format("{}", sync_parameter_value(sync_policy(sync.kind).parameter, sync)));
  }
  return out;
}

std::string sync_label(const SyncSpec& sync) {
  const SyncPolicyTraits& p = sync_policy(sync.kind);
  if (p.parameter == SyncParameter::None) return std::string(p.name);
  return fmt::format("{}({})", p.name, sync_parameter_value(p.parameter, sync));
}

}  // namespace dtsim
