// comm_holds_cores (models/cost/cores.hpp) in the analytical engine: with a cpu-backend profile a
// transfer or collective starts, first come first served, once none of its ranks' cores computes
// (after every event of the instant: a compute op made ready then has started and keeps its core);
// until it ends no compute starts on those cores, and compute made ready while a transfer holds its
// core waits for it. Communication overlaps communication.
#pragma once

#include <functional>
#include <list>
#include <map>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "sim/analytical/device_turns.hpp"
#include "sim/analytical/event_queue.hpp"

namespace dtsim::analytical {

class CoreHolds {
 public:
  // Compute that waited for a transfer: `resume` takes it again at the instant its core is free of
  // transfers (e.time is that instant).
  using Resume = std::function<void(const Event& e, double seconds, double under)>;
  CoreHolds(const ClusterSpec& cluster, DeviceTurns& turns, Resume resume);

  bool enabled() const { return enabled_; }
  // Communication of `ranks` waits for their cores: `begin` runs at the release() that finds them idle.
  void wait(const std::vector<int>& ranks, std::function<void(double)> begin);
  void release(double now);  // starts the communication whose cores are idle at `now`, in order of wait()
  // No compute starts on the rank's core before `end`.
  void hold(int rank, double end);
  double until(int rank) const;  // when communication last holds the rank's core (0 when disabled)
  // Compute made ready while a transfer holds its core: true when it waits (for resume).
  bool defer(const Event& e, double seconds, double under);
  // A transfer of the rank begins, or ends at `end` (its bytes drained at `now`).
  void transfer_begin(int rank) { ++transfers_on_[turns_.device(rank)]; }
  void transfer_end(int rank, double end, double now);

 private:
  struct Held {
    std::vector<Device> cores;
    std::function<void(double)> begin;
  };
  struct Deferred {
    Event e;
    double seconds;
    double under;
  };
  DeviceTurns& turns_;
  Resume resume_;
  bool enabled_ = false;
  std::map<Device, double> until_;                    // communication holds each core until
  std::list<Held> held_;                              // communication waiting for its cores
  std::map<Device, int> transfers_on_;                // transfers holding each core
  std::map<Device, std::vector<Deferred>> deferred_;  // compute waiting for them
};

}  // namespace dtsim::analytical
