// comm_holds_cores (models/cost/cost_model.hpp) on SimGrid: with a cpu-backend profile a
// transfer or collective starts once every party has arrived and none of their cores has compute
// running or waiting; until it ends, compute waits for those cores. Communication overlaps
// communication. The same rule as the analytical engine's, which also lets a compute op made
// ready at the very instant a core frees go first; here whichever actor asks first at that
// instant does (docs/calibration.md).
#pragma once

#include <simgrid/s4u.hpp>

#include <map>
#include <utility>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"
#include "models/cost/comm_keys.hpp"

namespace dtsim::sg {

class CoreHolds {
 public:
  CoreHolds(const ClusterSpec& cluster, const Plan& plan);
  bool enabled() const { return enabled_; }
  void create();  // the synchronisation objects, before the engine runs (creating them may yield)

  void compute_begin(int rank);  // waits while communication holds the rank's core
  void compute_end(int rank);
  // One of `parties` actors of `key` arrives; the first to see all parties in and every core of
  // `ranks` idle starts it for all: each rank of `ranks` then holds its core until comm_end(rank).
  void comm_begin(const cost::CommKey& key, const std::vector<int>& ranks, int parties);
  void comm_end(int rank);

 private:
  struct Gang {
    int arrived = 0;
    int left = 0;  // parties still to leave comm_begin once started
    bool started = false;
  };
  bool enabled_ = false;
  std::vector<std::pair<int, int>> core_;  // each rank's core (compute_devices)
  std::map<std::pair<int, int>, int> computing_, comms_;
  std::map<cost::CommKey, Gang> gangs_;
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr changed_;
};

}  // namespace dtsim::sg
