// Point-to-point transfers sharing the ports they cross at max-min fair rates, as SimGrid's solver
// shares links (progressive filling): every flow's rate grows until a port it crosses is full; the
// flows of that port keep that rate, the others grow on. Rates are recomputed whenever a flow
// starts or drains, so a flow that joins a busy port slows the ones already on it.
//
// A flow needs `cost` seconds of a port per byte at each of its two ports (copies / bytes per
// second: a representative's mirrored ranks send their copies through its node's NIC at once). Closed
// forms (tests/sim/analytical/port_share_test.cpp):
//   - N equal flows of S bytes into one port of B bytes/s, started together, all drain at N*S/B;
//   - a flow of S bytes alone from 0, joined at t < S/B by another of S bytes on its port: the first
//     drains at t + 2(S - tB)/B = 2S/B - t, the second at 2S/B;
//   - a port's flows drain, in total, when the port has carried their bytes (work conserving).
// A port with a bandwidth profile (cluster.nic_profile) has the profile's factor of its rate: the
// rates are shared again at each change of a factor, which is exact for piecewise-constant profiles.
#pragma once

#include <limits>
#include <vector>

#include "core/base/profile.hpp"
#include "models/cost/cost_model.hpp"

namespace dtsim::analytical {

struct PortFlow {
  int id = 0;
  double bytes = 0;
  cost::Port ports[2];
  double cost[2] = {0, 0};                          // port-seconds per byte at each port
  const Profile* profiles[2] = {nullptr, nullptr};  // bandwidth profile of each port, if any
};

class PortShare {
 public:
  // The flows start at `now` (not before the last call's time) and the rates are shared again.
  void add(double now, const std::vector<PortFlow>& flows);
  // When the next flow drains or a port's factor changes (infinity when none flows).
  double next_drain() const { return next_; }
  // Advances to `now` (at most next_drain()) and returns the ids of the flows drained by then, in
  // the order they started (none at a change of a factor); the others share the ports again.
  std::vector<int> drain(double now);
  bool empty() const { return active_.empty(); }
  // The rate of a flowing flow in bytes per second at full profile factor (for tests).
  double rate(int id) const;

 private:
  struct Active {
    PortFlow flow;
    double left;  // bytes
    double rate = 0;
    double end = std::numeric_limits<double>::infinity();
  };
  void advance(double now);
  void allocate();

  std::vector<Active> active_;
  double since_ = 0;
  double next_ = std::numeric_limits<double>::infinity();
};

}  // namespace dtsim::analytical
