// Test helpers for collective schedules: a symbolic executor that tracks, for every rank and
// chunk, how many times each rank's contribution is in that rank's copy, and checks both
// every transfer (the sender holds the chunk when the round starts; no contribution is ever
// counted twice) and the end state each collective promises.
#pragma once

#include <string>
#include <vector>

#include "models/collectives/collective.hpp"

namespace dtsim::test {

// "" when `schedule` carries out `kind` on `group`; otherwise the first thing that went wrong.
std::string verify_schedule(CollectiveKind kind, const GroupShape& group, const Schedule& schedule);

// Bytes each rank sends over the whole schedule.
std::vector<double> bytes_sent(const Schedule& schedule, int ranks);
double total_bytes(const Schedule& schedule);

// A few shapes to run every algorithm on: sizes 2..17 (or powers of two), several per_node
// values that divide the size, and several roots.
std::vector<GroupShape> shapes(const std::vector<int>& sizes, const std::vector<int>& per_node);

}  // namespace dtsim::test
