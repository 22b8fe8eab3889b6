// Device turns: a SimGrid mutex per device that more than one compute stream uses.
#include "sim/simgrid/device_turns.hpp"

namespace sg4 = simgrid::s4u;

namespace dtsim::sg {

DeviceTurns::DeviceTurns(const Plan& plan, const Platform& platform, CoreSharing sharing)
    : plan_(plan), platform_(platform), sharing_(sharing) {}

DeviceTurns::Device DeviceTurns::device_of(int rank) const {
  if (platform_.compute_hosts.empty()) return {platform_.rank_hosts[rank], -1};
  if (sharing_ == CoreSharing::Queue) return {platform_.compute_hosts[rank], -1};
  return {platform_.compute_hosts[rank], rank};
}

void DeviceTurns::create() {
  std::map<Device, int> streams_on;
  for (size_t r = 0; r < plan_.ranks.size(); ++r) {
    const Device device = device_of(static_cast<int>(r));
    streams_on[device] += 1;
    for (const Op& op : plan_.ranks[r].ops) {
      if (is_compute(op.body) && op.stream != Stream::Compute) streams_on[device] += 1;
    }
  }
  for (const auto& [device, count] : streams_on) {
    if (count > 1) locks_[device] = sg4::Mutex::create();
  }
}

std::unique_lock<sg4::Mutex> DeviceTurns::take(int rank) {
  const auto shared = locks_.find(device_of(rank));
  if (shared == locks_.end()) return {};
  return std::unique_lock<sg4::Mutex>(*shared->second);
}

}  // namespace dtsim::sg
