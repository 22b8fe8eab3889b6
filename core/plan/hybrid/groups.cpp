// Hybrid communicators (groups.hpp).
#include "core/plan/hybrid/groups.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim {
namespace {

// Consecutive group members on one node (GroupShape::per_node), or 1 when the group's members are
// not spread over its nodes in equal consecutive runs.
int per_node_of(const Plan& plan, const std::vector<int>& ranks) {
  int run = 0;
  while (run < static_cast<int>(ranks.size()) && plan.ranks[ranks[run]].where.node == plan.ranks[ranks[0]].where.node) {
    ++run;
  }
  if (ranks.size() % run != 0) return 1;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (plan.ranks[ranks[i]].where.node != plan.ranks[ranks[i - i % run]].where.node) return 1;
    if (i % run == 0 && i > 0 && plan.ranks[ranks[i]].where.node == plan.ranks[ranks[i - 1]].where.node) return 1;
  }
  return run;
}

// Groups [first, end) are of one kind and collect in step: each one's siblings are the groups with
// ranks on its first node that span several nodes too (those on one node use no NIC).
void count_siblings(Plan& plan, size_t first) {
  std::map<int, int> spanning;  // node -> groups of the kind with ranks there that cross nodes
  const auto spans = [&](const CommGroup& g) {
    return plan.ranks[g.ranks.front()].where.node != plan.ranks[g.ranks.back()].where.node;
  };
  for (size_t i = first; i < plan.groups.size(); ++i) {
    if (!spans(plan.groups[i])) continue;
    std::vector<int> nodes;
    for (int r : plan.groups[i].ranks) nodes.push_back(plan.ranks[r].where.node);
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (int n : nodes) ++spanning[n];
  }
  for (size_t i = first; i < plan.groups.size(); ++i) {
    CommGroup& g = plan.groups[i];
    if (spans(g)) g.siblings = spanning[plan.ranks[g.ranks.front()].where.node];
  }
}

}  // namespace

HybridGroups add_hybrid_groups(Plan& plan, const HybridLayout& layout, const std::vector<int>& workers,
                               bool tied_embeddings) {
  HybridGroups out;
  out.index.assign(workers.size(), {});
  for (auto& row : out.index) row.fill(-1);
  for (int k = 0; k < kGroupKinds; ++k) {
    const auto kind = static_cast<GroupKind>(k);
    if (kind == GroupKind::Pipeline) continue;  // stages talk by messages; their group is the tied embeddings'
    const size_t first = plan.groups.size();
    for (const auto& members : layout.groups(kind)) {
      if (members.size() < 2) continue;
      CommGroup group;
      for (int m : members) group.ranks.push_back(workers[m]);
      group.per_node = per_node_of(plan, group.ranks);
      group.kind = kind;
      for (int m : members) out.index[m][k] = static_cast<int>(plan.groups.size());
      plan.groups.push_back(std::move(group));
    }
    count_siblings(plan, first);
  }
  out.tied.assign(workers.size(), -1);
  if (tied_embeddings) {
    const size_t first = plan.groups.size();
    for (const auto& members : layout.groups(GroupKind::Pipeline)) {
      CommGroup group;
      group.ranks = {workers[members.front()], workers[members.back()]};
      group.per_node = per_node_of(plan, group.ranks);
      group.kind = GroupKind::Pipeline;
      out.tied[members.front()] = out.tied[members.back()] = static_cast<int>(plan.groups.size());
      plan.groups.push_back(std::move(group));
    }
    count_siblings(plan, first);
  }
  return out;
}

const CollectiveAlgorithm& hybrid_algorithm(const CollectiveAlgorithm& preferred, CollectiveKind kind,
                                            const GroupShape& shape) {
  if (preferred.supports(kind, shape)) return preferred;
  for (const char* fallback : {"ring", "direct"}) {
    const CollectiveAlgorithm& a = find_algorithm(fallback);
    if (a.supports(kind, shape)) return a;
  }
  throw RuntimeError(
      fmt::format("plan: no collective algorithm runs {} over {} ranks", collective_name(kind), shape.size));
}

bool represents_stage(const HybridLayout& layout, int local) {
  const Coords c = layout.coords(local);
  return c[Dim::Tensor] == 0 && c[Dim::Context] == 0 && c[Dim::Expert] == 0 && c[Dim::Data] == 0;
}

}  // namespace dtsim
