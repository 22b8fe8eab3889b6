// Ranks taking turns on a device in the analytical engine: a device computes one op at a time, so
// the ranks that share one (a server's per-worker ranks, or ranks on shared cores) queue, first come
// first served. It keeps the compute op each rank is running, which a backup-worker quorum cuts short.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/plan/plan.hpp"
#include "sim/analytical/event_queue.hpp"

namespace dtsim::analytical {

// What a rank computes on (cost::compute_devices): (node, local), or (-1, core) on shared cores.
using Device = std::pair<int, int>;

// The compute op a rank is running, or op -1.
struct Running {
  int op;
  long seq;  // of its done event
  double start;
  double end;  // when it would have ended (the device's free time it set)
};

class DeviceTurns {
 public:
  DeviceTurns(const ClusterSpec& cluster, const Plan& plan, EventQueue& events);

  const Device& device(int rank) const { return device_[static_cast<size_t>(rank)]; }
  // The op of `e` computes `seconds` of work at full speed (longer where its device's speed profile is
  // below 1, integrated exactly) once its device is free, and not before `not_before`.
  void start(const Event& e, double seconds, double not_before);
  // Whether the device computes nothing at `now`.
  bool idle(const Device& d, double now) { return free_[d] <= now; }
  // The device of the rank, busy until `end` with an op cut short, is free from `now` on unless another
  // op queued behind it.
  void free_early(int rank, double end, double now);

  Running& running(int rank) { return running_[rank]; }
  void finished(int rank, long seq) {  // a done event came up
    if (running_[rank].seq == seq) running_[rank].op = -1;
  }

 private:
  const Plan& plan_;
  EventQueue& events_;
  std::vector<Device> device_;     // each rank's
  std::map<Device, double> free_;  // when each device is free
  std::vector<Running> running_;   // by rank
};

}  // namespace dtsim::analytical
