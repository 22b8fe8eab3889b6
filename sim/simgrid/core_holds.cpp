// comm_holds_cores on SimGrid: one mutex and condition variable for every core's state.
#include "sim/simgrid/core_holds.hpp"

#include <algorithm>

#include "models/cost/cores.hpp"

namespace sg4 = simgrid::s4u;

namespace dtsim::sg {

using cost::CommKey;

CoreHolds::CoreHolds(const ClusterSpec& cluster, const Plan& plan)
    : enabled_(cost::comm_holds_cores(cluster)), core_(cost::compute_devices(cluster, plan)) {}

void CoreHolds::create() {
  if (!enabled_) return;
  mutex_ = sg4::Mutex::create();
  changed_ = sg4::ConditionVariable::create();
}

void CoreHolds::compute_begin(int rank) {
  const auto core = core_[static_cast<size_t>(rank)];
  std::unique_lock lock(*mutex_);
  ++computing_[core];
  while (comms_[core] > 0) changed_->wait(lock);
}

void CoreHolds::compute_end(int rank) {
  std::unique_lock lock(*mutex_);
  --computing_[core_[static_cast<size_t>(rank)]];
  changed_->notify_all();
}

void CoreHolds::comm_begin(const CommKey& key, const std::vector<int>& ranks, int parties) {
  std::unique_lock lock(*mutex_);
  Gang& gang = gangs_[key];
  ++gang.arrived;
  while (!gang.started) {
    const bool idle =
        std::all_of(ranks.begin(), ranks.end(), [&](int r) { return computing_[core_[static_cast<size_t>(r)]] == 0; });
    if (gang.arrived == parties && idle) {
      for (int r : ranks) ++comms_[core_[static_cast<size_t>(r)]];
      gang.started = true;
      gang.left = parties;
      changed_->notify_all();
      break;
    }
    changed_->wait(lock);
  }
  if (--gang.left == 0) gangs_.erase(key);
}

void CoreHolds::comm_end(int rank) {
  std::unique_lock lock(*mutex_);
  --comms_[core_[static_cast<size_t>(rank)]];
  changed_->notify_all();
}

}  // namespace dtsim::sg
