// Dynamic batch sizing as real systems do it: before each iteration, every worker of a balancing
// job gets a share of the global batch proportional to its speed, so that all finish their compute
// together. The first iteration uses the speeds known beforehand (Plan::batch_scale); each later one
// the speeds measured in the iteration before (samples over forward and backward busy time), which
// tracks fixed slowdowns and slow profiles and lags random jitter by one iteration. Both engines
// keep one of these and ask it the multiplier of a forward or backward op's duration.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "core/plan/plan.hpp"

namespace dtsim {

class BatchBalancer {
 public:
  explicit BatchBalancer(const Plan& plan);

  // Whether an op's duration follows the rank's batch share (forward and backward compute of a
  // balancing job).
  bool scales(int rank, const Op& op) const;
  // The multiplier of rank's forward and backward compute in `iteration` (1 outside balancing jobs).
  double scale(int rank, int iteration);
  // One of rank's scaled ops in `iteration` took `seconds`.
  void record(int rank, int iteration, double seconds);

 private:
  const Plan& plan_;
  std::vector<int> job_of_;                       // per rank: its job if the job balances, else -1
  std::map<std::pair<int, int>, double> busy_;    // (rank, iteration) -> seconds of scaled ops
  std::map<std::pair<int, int>, double> scales_;  // (rank, iteration) -> share multiplier
};

}  // namespace dtsim
