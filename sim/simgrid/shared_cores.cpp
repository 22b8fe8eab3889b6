// Ranks beyond the calibrated machine's cores (shared_cores() in models/cost/cores.hpp: a
// profile measured on one host with as many ranks as the Plan has, more ranks than cores): one
// SimGrid host per core, on which the ranks of core c (r mod cores = c) run their compute.
//
// How they share it (SimGridOptions::core_sharing):
//  - Queue (the default): one op at a time, in the order the ranks asked for the core (Replay's
//    host locks; a SimGrid mutex is FIFO), exactly as the analytical engine queues them. Two ranks
//    asking at once for ops of t seconds: one ends at t, the other waits t and ends at 2t. Runs
//    measured on the 2-core machine behave so: with 4 ranks the forward ops lasted 0.24 ms as in
//    calibration, not twice that (docs/VALIDATION.md), as a GEMM shorter than the OS's time slice
//    mostly runs whole once its process is scheduled.
//  - Processor: SimGrid's processor sharing, the host's speed split between the ops running on it:
//    both end at 2t (time-slicing ops much longer than the slice). A core is busy as long either
//    way, so where a core's ranks run the same ops at once (every scenario of bench/validation/)
//    the iteration time is the same; a single op lasts 2t instead of t, and where a core's ranks
//    run different work at once (a worker beside a server) the order of the ends differs
//    (tests/sim/simgrid/shared_cores_test.cpp quantifies both).
//
// Only computation runs on the core hosts: they have no links, and each rank keeps its own host
// (its intra links and NIC) for communication.
#include <fmt/format.h>

#include <algorithm>

#include "core/base/error.hpp"
#include "core/calibration/calibration.hpp"
#include "models/cost/cores.hpp"
#include "sim/simgrid/platform_parts.hpp"

namespace dtsim::sg::detail {

namespace {
// The core hosts' speed. Calibrated compute times come from the profile, not the device zoo, and an
// op of t seconds runs as t * speed FLOPs: any positive speed gives the same times.
constexpr double kCoreSpeed = 1e9;
}  // namespace

void add_shared_cores(sg4::NetZone* root, const ClusterSpec& cluster, const Plan& plan, Platform& platform) {
  const std::vector<int> core = cost::shared_cores(cluster, plan);
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
