// Ranks beyond the calibrated machine's cores (shared_cores() in sim/analytical/cost_model.hpp: a
// profile measured on one host with as many ranks as the Plan has, more ranks than cores): one
// SimGrid host per core, on which the ranks of core c (r mod cores = c) run their compute.
//
// SimGrid shares a host's speed between the activities running on it at once (processor sharing):
// two ranks computing ops of t seconds each at once both end at 2t, as the OS time-slicing their
// processes does. The analytical engine queues the ops instead (FIFO: one ends at t, the other at
// 2t). Both keep the core busy for the same time, so a core's last op ends at the same moment and
// iteration times agree (tests/calibrate/shared_cores_test.cpp measures both); a single op's
// duration differs (2t against t plus a wait of t).
//
// Only computation runs on the core hosts: they have no links, and each rank keeps its own host
// (its intra links and NIC) for communication. A rank's own streams still take turns on its device
// (Replay's host locks), so a rank on a shared core never runs two ops at once.
#include <fmt/format.h>

#include <algorithm>

#include "models/calibration.hpp"
#include "models/error.hpp"
#include "sim/analytical/cost_model.hpp"
#include "sim/simgrid/platform_parts.hpp"

namespace dtsim::sg::detail {

namespace {
// The core hosts' speed. Calibrated compute times come from the profile, not the device zoo, and an
// op of t seconds runs as t * speed FLOPs: any positive speed gives the same times.
constexpr double kCoreSpeed = 1e9;
}  // namespace

void add_shared_cores(sg4::NetZone* root, const ClusterSpec& cluster, const Plan& plan, Platform& platform) {
  const std::vector<int> core = shared_cores(cluster, plan);
  if (core.empty()) return;
  for (size_t r = 0; r < core.size(); ++r) {
    if (plan.speed_profile_of(static_cast<int>(r)) == nullptr) continue;
    throw InputError(fmt::format(
        "stragglers.speed_profile: rank {} shares core {} with other ranks (cluster.calibration measured {} ranks on "
        "{} cores), and the SimGrid engine cannot slow one rank of a shared core (use --engine analytical)",
        r, core[r], cluster.calibration->machine.ranks, cluster.calibration->machine.cores));
  }
  sg4::NetZone* zone = sg4::create_full_zone("cores");
  zone->set_parent(root);
  std::vector<sg4::Host*> hosts;
  const int cores = *std::max_element(core.begin(), core.end()) + 1;
  for (int c = 0; c < cores; ++c) hosts.push_back(zone->create_host(fmt::format("core{}", c), kCoreSpeed));
  zone->seal();
  platform.compute_hosts.resize(core.size());
  for (size_t r = 0; r < core.size(); ++r) {
    platform.compute_hosts[r] = hosts[static_cast<size_t>(core[r])];
    platform.rank_speed[r] = kCoreSpeed;
  }
}

}  // namespace dtsim::sg::detail
