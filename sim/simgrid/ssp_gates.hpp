// Stale-synchronous gates (GateOp): a worker passes its gate of iteration it once every worker of
// its job has reached its own gate of iteration (it - lag) at least; lag 0 is a barrier.
#pragma once

#include <simgrid/s4u.hpp>

#include <map>
#include <vector>

#include "core/plan/plan.hpp"

namespace dtsim::sg {

class SspGates {
 public:
  explicit SspGates(const Plan& plan) : plan_(plan) {}
  void create();  // the synchronisation objects, before the engine runs (creating them may yield)
  void pass(int rank, const GateOp& g, int iteration);  // returns once the gate lets the rank through

 private:
  struct Job {
    std::vector<int> progress;  // gates reached by each worker of the job
    simgrid::s4u::MutexPtr mutex;
    simgrid::s4u::ConditionVariablePtr changed;
  };
  const Plan& plan_;
  std::map<int, Job> jobs_;
};

}  // namespace dtsim::sg
