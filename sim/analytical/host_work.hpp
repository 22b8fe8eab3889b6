// The host work before a communication in the analytical engine (collective_host_time,
// send_host_time: filling and checking buffers, measured by calibration): the op is made ready
// once, waits that long, and is made ready again past it. A worker fills its pushes one after the
// other on its posted stream.
#pragma once

#include <unordered_set>
#include <vector>

#include "core/plan/plan.hpp"
#include "models/cost/comm_keys.hpp"

namespace dtsim::analytical {

class HostWork {
 public:
  explicit HostWork(const Plan& plan) : posted_free_(plan.ranks.size(), 0.0) {}
  // Whether op `op` is made ready the second time, past its host work (then forgotten); else it is noted.
  bool past(const cost::OpInstance& op);
  // A send's `host` seconds of work made ready at `now`: when its rank's posted stream is done with it.
  double posted(int rank, double now, double host);

 private:
  std::unordered_set<cost::OpInstance, cost::CommKeyHash> prepared_;  // past their host work
  std::vector<double> posted_free_;  // by rank: when its posted stream's host work ends
};

}  // namespace dtsim::analytical
