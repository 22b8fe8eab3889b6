// comm_holds_cores in the analytical engine (core_holds.hpp).
#include "sim/analytical/core_holds.hpp"

#include <algorithm>
#include <utility>

#include "models/cost/cores.hpp"

namespace dtsim::analytical {

CoreHolds::CoreHolds(const ClusterSpec& cluster, DeviceTurns& turns, Resume resume)
    : turns_(turns), resume_(std::move(resume)), enabled_(cost::comm_holds_cores(cluster)) {}

void CoreHolds::wait(const std::vector<int>& ranks, std::function<void(double)> begin) {
  std::vector<Device> cores;
  for (int r : ranks) cores.push_back(turns_.device(r));
  std::sort(cores.begin(), cores.end());
  cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
  held_.push_back(Held{std::move(cores), std::move(begin)});
}

void CoreHolds::release(double now) {
  for (auto it = held_.begin(); it != held_.end();) {
    const bool idle =
        std::all_of(it->cores.begin(), it->cores.end(), [&](const Device& d) { return turns_.idle(d, now); });
    if (!idle) {
      ++it;
      continue;
    }
    const std::function<void(double)> begin = std::move(it->begin);
    it = held_.erase(it);
    begin(now);
  }
}

void CoreHolds::hold(int rank, double end) {
  double& until = until_[turns_.device(rank)];
  until = std::max(until, end);
}

double CoreHolds::until(int rank) const {
  if (!enabled_) return 0.0;
  const auto found = until_.find(turns_.device(rank));
  return found == until_.end() ? 0.0 : found->second;
}

bool CoreHolds::defer(const Event& e, double seconds, double under) {
  const Device& d = turns_.device(e.rank);
  if (transfers_on_[d] <= 0) return false;
  deferred_[d].push_back(Deferred{e, seconds, under});
  return true;
}

void CoreHolds::transfer_end(int rank, double end, double now) {
  const Device& d = turns_.device(rank);
  hold(rank, end);
  if (--transfers_on_[d] != 0) return;
  auto found = deferred_.find(d);
  if (found == deferred_.end()) return;
  const auto waiting = std::move(found->second);
  deferred_.erase(found);
  for (auto [e, seconds, under] : waiting) {
    e.time = now;
    resume_(e, seconds, under);
  }
}

}  // namespace dtsim::analytical
