// Stale-synchronous gates (GateOp) in the analytical engine: a worker's gate of iteration k passes
// once every worker of its job has reached its own gate of iteration k - lag; lag 0 is a barrier.
#pragma once

#include <map>
#include <vector>

#include "core/plan/plan.hpp"
#include "sim/analytical/event_queue.hpp"

namespace dtsim::analytical {

class SspGates {
 public:
  SspGates(const Plan& plan, EventQueue& events) : plan_(plan), events_(events) {}
  // The rank of `e` reaches its gate of iteration `it`: every gate that may pass now ends now.
  void arrive(const Event& e, const GateOp& g, int it);

 private:
  struct Wait {
    int rank, op, required;
    double since;
  };
  struct Job {
    std::vector<int> progress;  // gates reached by each worker
    std::vector<Wait> waiting;
  };
  const Plan& plan_;
  EventQueue& events_;
  std::map<int, Job> jobs_;
};

}  // namespace dtsim::analytical
