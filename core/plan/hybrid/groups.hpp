// The communicators of a hybrid job: a plan group (CommGroup) for every tensor, context, expert,
// data and expert-data group of ranks its layout forms (groups of one rank need none), with their
// ranks per node and the sibling groups that share their nodes' NICs, and one group per pipeline
// joining its first and last stage for tied embeddings; the algorithm each collective over them runs, and the
// ranks that represent their stage.
#pragma once

#include <array>
#include <vector>

#include "core/plan/plan.hpp"
#include "models/parallel/layout.hpp"

namespace dtsim {

struct HybridGroups {
  std::vector<std::array<int, kGroupKinds>> index;  // by job-local rank: plan group of each kind, or -1
  std::vector<int> tied;                            // by job-local rank: the tied embeddings' group, or -1
};

// Appends the job's groups to plan.groups; `workers` maps job-local ranks to plan ranks (placed).
HybridGroups add_hybrid_groups(Plan& plan, const HybridLayout& layout, const std::vector<int>& workers,
                               bool tied_embeddings);

// The algorithm a hybrid job's collective of `kind` runs over `shape`: strategy.algorithm where it
// supports them, else ring, else direct.
const CollectiveAlgorithm& hybrid_algorithm(const CollectiveAlgorithm& preferred, CollectiveKind kind,
                                            const GroupShape& shape);

// Whether job-local rank `local` represents its stage (its tensor, context, expert and data coordinates are 0).
bool represents_stage(const HybridLayout& layout, int local);

}  // namespace dtsim
