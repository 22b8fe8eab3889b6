// Collective kinds by name, group checks, the error an unsupported collective gives, and the
// round-by-round timing of a schedule on uncontended links (schedule_time).
#include "models/collectives/collective.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/collectives/detail.hpp"
#include "models/error.hpp"
#include "models/suggest.hpp"

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
  validate_group(group);
  // load[(rank * 2 + class) * 2 + direction]: bytes out (0) and in (1) per class (0 intra, 1 inter).
  std::vector<double> load(static_cast<std::size_t>(group.size) * 4, 0.0);
  std::vector<int> touched;
  double total = 0;
  for (const Round& round : schedule.rounds) {
    std::array<bool, 2> used{};
    touched.clear();
    for (const Transfer& t : round.transfers) {
      if (t.src < 0 || t.src >= group.size || t.dst < 0 || t.dst >= group.size) {
        throw RuntimeError(
            fmt::format("schedule sends from rank {} to rank {} in a group of {}", t.src, t.dst, group.size));
      }
      const std::size_t cls = group.same_node(t.src, t.dst) ? 0 : 1;
      used[cls] = true;
      load[(static_cast<std::size_t>(t.src) * 2 + cls) * 2] += t.bytes;
      load[(static_cast<std::size_t>(t.dst) * 2 + cls) * 2 + 1] += t.bytes;
      touched.push_back(t.src);
      touched.push_back(t.dst);
    }
    std::array<double, 2> worst{};
    for (int r : touched) {
      for (std::size_t cls = 0; cls < 2; ++cls) {
        const std::size_t at = (static_cast<std::size_t>(r) * 2 + cls) * 2;
        worst[cls] = std::max({worst[cls], load[at], load[at + 1]});
        load[at] = 0;
        load[at + 1] = 0;
      }
    }
    double round_time = 0;
    if (used[0]) round_time = ab.alpha_intra + worst[0] / ab.bw_intra;
    if (used[1]) round_time = std::max(round_time, ab.alpha_inter + worst[1] / ab.bw_inter);
    total += round_time;
  }
  return total;
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
