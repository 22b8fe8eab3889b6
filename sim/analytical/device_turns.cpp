// Ranks taking turns on a device in the analytical engine (device_turns.hpp).
#include "sim/analytical/device_turns.hpp"

#include <algorithm>

#include "models/cost/cores.hpp"

namespace dtsim::analytical {

DeviceTurns::DeviceTurns(const ClusterSpec& cluster, const Plan& plan, EventQueue& events)
    : plan_(plan), events_(events), device_(cost::compute_devices(cluster, plan)) {
  running_.assign(plan.ranks.size(), Running{-1, -1, 0.0, 0.0});
}

void DeviceTurns::start(const Event& e, double seconds, double not_before) {
  double& free_at = free_[device(e.rank)];
  const double start = std::max({e.time, free_at, not_before});
  const Profile* profile = plan_.speed_profile_of(e.rank);
  free_at = profile ? profile->finish(start, seconds) : start + seconds;
  running_[e.rank] = Running{e.op, events_.push(free_at, true, e.rank, e.op, start), start, free_at};
}

void DeviceTurns::free_early(int rank, double end, double now) {
  double& free_at = free_[device(rank)];
  if (free_at == end) free_at = now;
}

}  // namespace dtsim::analytical
