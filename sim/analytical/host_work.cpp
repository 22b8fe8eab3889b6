// The host work before a communication in the analytical engine (host_work.hpp).
#include "sim/analytical/host_work.hpp"

#include <algorithm>

namespace dtsim::analytical {

bool HostWork::past(const cost::OpInstance& op) {
  if (prepared_.erase(op) > 0) return true;
  prepared_.insert(op);
  return false;
}

double HostWork::posted(int rank, double now, double host) {
  double& free = posted_free_[static_cast<size_t>(rank)];
  free = std::max(free, now) + host;
  return free;
}

}  // namespace dtsim::analytical
