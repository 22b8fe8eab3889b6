// Where the parties of one communication meet: the latest of their arrivals (a communication
// starts when every party is there; the time a party spends before that is waiting, as the
// analytical engine counts it) and barriers at its start and its end.
#pragma once

#include <simgrid/s4u.hpp>

#include <unordered_map>
#include <utility>

#include "models/cost/comm_keys.hpp"

namespace dtsim::sg {

class Rendezvous {
 public:
  enum class Moment { Start, End };

  // A party of `key` arrives at `at`: returns the latest arrival so far. The reference stays valid
  // and follows later arrivals until the last of the `parties` leaves.
  double& arrive(const cost::CommKey& key, double at);
  // A party is done with `key`: returns the latest arrival (every party's, since each leaves after
  // it arrived and the communication began once all had); the last of `parties` drops the entry.
  double leave(const cost::CommKey& key, unsigned parties);
  // Waits until `parties` actors have met at this moment of `key`; the first one makes the barrier.
  void meet(const cost::CommKey& key, Moment moment, unsigned parties);

 private:
  struct Arrivals {
    double latest = 0;
    unsigned left = 0;
  };
  struct BarrierHash {
    size_t operator()(const std::pair<cost::CommKey, Moment>& k) const {
      return cost::CommKeyHash::mix(cost::CommKeyHash{}(k.first), static_cast<int>(k.second));
    }
  };
  std::unordered_map<cost::CommKey, Arrivals, cost::CommKeyHash> arrivals_;
  std::unordered_map<std::pair<cost::CommKey, Moment>, simgrid::s4u::BarrierPtr, BarrierHash> barriers_;
};

}  // namespace dtsim::sg
