// Collective kinds by name, group checks, the error an unsupported collective gives, and the
// round-by-round timing of a schedule on uncontended links (schedule_time).
#include "models/collectives/collective.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/base/error.hpp"
#include "core/base/suggest.hpp"
#include "models/collectives/detail.hpp"

namespace dtsim {
namespace {

constexpr std::array kKinds{
    std::pair{CollectiveKind::AllReduce, std::string_view("allreduce")},
    std::pair{CollectiveKind::ReduceScatter, std::string_view("reduce_scatter")},
    std::pair{CollectiveKind::AllGather, std::string_view("allgather")},
    std::pair{CollectiveKind::Broadcast, std::string_view("broadcast")},
    std::pair{CollectiveKind::Reduce, std::string_view("reduce")},
    std::pair{CollectiveKind::AllToAll, std::string_view("alltoall")},
};

}  // namespace

std::string_view collective_name(CollectiveKind kind) {
  for (const auto& [k, name] : kKinds) {
    if (k == kind) return name;
  }
  return "unknown";
}

CollectiveKind parse_collective(std::string_view text) {
  std::vector<std::string_view> names;
  for (const auto& [kind, name] : kKinds) {
    if (name == text) return kind;
    names.push_back(name);
  }
  throw InputError(fmt::format("'{}' is not a collective (valid: {}){}", text, fmt::join(names, ", "),
                               did_you_mean(text, std::vector<std::string>(names.begin(), names.end()))));
}

void validate_group(const GroupShape& group) {
  if (group.size < 1) throw InputError(fmt::format("a collective group needs at least 1 rank (got {})", group.size));
  if (group.per_node < 1) {
    throw InputError(fmt::format("ranks per node must be at least 1 (got {})", group.per_node));
  }
  if (group.size % group.per_node != 0) {
    throw InputError(fmt::format("group size {} is not a multiple of ranks per node {}", group.size, group.per_node));
  }
  if (group.root < 0 || group.root >= group.size) {
    throw InputError(fmt::format("root {} is outside the group of {} ranks", group.root, group.size));
  }
}

void CollectiveAlgorithm::require(CollectiveKind kind, const GroupShape& group, double bytes) const {
  validate_group(group);
  if (!std::isfinite(bytes) || bytes < 0) {
    throw InputError(fmt::format("a collective's size must be a finite number of bytes >= 0 (got {})", bytes));
  }
  const std::string reason = unsupported_reason(kind, group);
  if (reason.empty()) return;
  std::vector<std::string_view> able;
  for (std::string_view other : algorithm_names()) {
    if (find_algorithm(other).supports(kind, group)) able.push_back(other);
  }
  if (able.empty()) throw InputError(reason);
  throw InputError(fmt::format("{}; algorithms that can: {}", reason, fmt::join(able, ", ")));
}

int pipeline_chunks(double bytes) {
  if (!(bytes > kPipelineChunkBytes)) return 1;
  const double chunks = std::ceil(bytes / kPipelineChunkBytes);
  return chunks >= kMaxPipelineChunks ? kMaxPipelineChunks : static_cast<int>(chunks);
}

double schedule_time(const Schedule& schedule, const GroupShape& group, const AlphaBeta& ab) {
  // A round is a phase of one round; same-pair transfers load a port exactly as their merged flow does.
  return flow_phase_time(step_phases(schedule), group, ab);
}

namespace collectives {

double class_time(const AlphaBeta& ab, bool inter, double bytes) {
  return inter ? ab.alpha_inter + bytes / ab.bw_inter : ab.alpha_intra + bytes / ab.bw_intra;
}

double round_time(const AlphaBeta& ab, bool uses_intra, bool uses_inter, double bytes) {
  double t = 0;
  if (uses_intra) t = class_time(ab, false, bytes);
  if (uses_inter) t = std::max(t, class_time(ab, true, bytes));
  return t;
}

}  // namespace collectives
}  // namespace dtsim
