// Rendezvous of a communication's parties: arrivals kept per communication, barriers made by the
// first party and dropped by the last; arrivals dropped when the last party leaves.
#include "sim/simgrid/rendezvous.hpp"

#include <algorithm>

namespace sg4 = simgrid::s4u;

namespace dtsim::sg {

using cost::CommKey;

double& Rendezvous::arrive(const CommKey& key, double at) {
  double& latest = arrivals_[key].latest;
  latest = std::max(latest, at);
  return latest;
}

double Rendezvous::leave(const CommKey& key, unsigned parties) {
  const auto found = arrivals_.find(key);
  const double latest = found->second.latest;
  if (++found->second.left >= parties) arrivals_.erase(found);
  return latest;
}

void Rendezvous::meet(const CommKey& key, Moment moment, unsigned parties) {
  const auto id = std::make_pair(key, moment);
  auto found = barriers_.find(id);
  if (found == barriers_.end()) {
    // Creating a synchronisation object may yield to other actors: look again before adding it.
    const sg4::BarrierPtr made = sg4::Barrier::create(parties);
    found = barriers_.find(id);
    if (found == barriers_.end()) found = barriers_.emplace(id, made).first;
  }
  const sg4::BarrierPtr keep = found->second;  // the map entry goes when the last party arrives
  if (keep->wait()) barriers_.erase(id);
}

}  // namespace dtsim::sg
