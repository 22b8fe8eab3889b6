// Waiting by cause: each gap in a rank's busy time (neither computing nor communicating) is put
// down to what ended it: peers at a barrier, a staleness bound, a busy parameter server, or nothing
// to do. Failures are job-wide (sim/faults) and are added from the fault report.
#pragma once

#include <vector>

#include "core/plan/plan.hpp"
#include "core/run/observer.hpp"

namespace dtsim {

struct WaitCauses {
  double barrier = 0;      // a collective, a BSP push or pull, or a backup quorum waiting for peers
  double staleness = 0;    // an SSP worker held at its staleness bound (GateOp)
  double server_busy = 0;  // an asynchronous server's shared device busy with other workers' updates,
                           // or an asynchronous worker waiting for its pull while the server works
  double idle = 0;         // nothing to do: an asynchronous server waiting for its worker's next push
  double pipeline = 0;     // the pipeline bubble: a stage waiting for its neighbour's activations or gradients,
                           // or for the other stages to drain before the optimizer step (hybrid plans)
  double failure = 0;      // job-wide: time lost to failures per useful iteration (faults.* only)
  double total() const { return barrier + staleness + server_busy + idle + failure + pipeline; }
  WaitCauses& operator+=(const WaitCauses& o);
  WaitCauses scaled(double f) const;
};

// The causes of one rank's waiting over [lo, hi], from its records there (any order).
WaitCauses wait_causes(const Plan& plan, int rank, const std::vector<OpRecord>& records, double lo, double hi,
                       bool synchronous);

}  // namespace dtsim
