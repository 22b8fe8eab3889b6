// Where the parties of one communication meet: the latest of their arrivals (a communication
// starts when every party is there; the time a party spends before that is waiting, as the
// analytical engine counts it) and barriers at its start and its end.
#pragma once

#include <simgrid/s4u.hpp>

#include <map>
#include <utility>

#include "sim/simgrid/comm_keys.hpp"

namespace dtsim::sg {

class Rendezvous {
 public:
  enum class Moment { Start, End };

  // A party of `key` arrives at `at`: returns the latest arrival so far. The reference stays valid
  // and follows later arrivals, so a party reading it when it finishes sees every party's.
  double& arrive(const CommKey& key, double at);
  // Waits until `parties` actors have met at this moment of `key`; the first one makes the barrier.
  void meet(const CommKey& key, Moment moment, unsigned parties);

 private:
  std::map<CommKey, double> arrivals_;
  std::map<std::pair<CommKey, Moment>, simgrid::s4u::BarrierPtr> barriers_;
};

}  // namespace dtsim::sg
