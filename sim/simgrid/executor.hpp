// The SimGrid engine: replays a Plan on a SimGrid platform, where links are shared and
// contention is real. One actor per rank and FIFO stream (compute, comm) plus one per posted op;
// collectives replay their algorithm's phases as messages (step: every round; flow: one
// aggregated flow per pair and phase). SimGrid allows one simulation per process: call run()
// once per process (the CLI does; tests fork).
#pragma once

#include "core/cluster/cluster.hpp"
#include "core/run/observer.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim::sg {

// How ranks sharing a calibrated machine's cores (shared_cores.cpp) share one: Queue, one op at a
// time in the order they asked (as the analytical engine, and as runs measured ops shorter than the
// OS's time slice); Processor, SimGrid's processor sharing (two ops at once each at half speed, as
// time-slicing ops much longer than the slice).
enum class CoreSharing { Queue, Processor };

struct SimGridOptions {
  Fidelity fidelity = Fidelity::Flow;
  bool fuse_compute = true;  // fuse compute runs nothing else waits on (same records, fewer activities)
  CoreSharing core_sharing = CoreSharing::Queue;
};

// What the replay cost, for benchmarks.
struct SimGridStats {
  long activities = 0;  // SimGrid activities issued (execs, comms, sleeps)
  int actors = 0;
  double platform_s = 0;  // wall time spent building the platform
};

class SimGridExecutor : public Executor {
 public:
  SimGridExecutor(const ClusterSpec& cluster, SimGridOptions options) : cluster_(cluster), options_(options) {}
  RunInfo run(const Plan& plan, Observer& observer) override;
  const SimGridStats& stats() const { return stats_; }

 private:
  const ClusterSpec& cluster_;
  SimGridOptions options_;
  SimGridStats stats_;
};

}  // namespace dtsim::sg
