// Compute and communication contending on a device (cluster.contention.compute): while a rank
// communicates, its host runs at a slower pstate, so SimGrid slows the compute running on it at the
// instant the communication begins and ends, as the analytical engine re-times it. A rank's host
// has pstate 0 at full speed, 1 at kept x speed (cost::compute_kept) for plain compute, and one more
// per distinct rate its composite ops keep (cost::composite_kept).
#pragma once

#include <simgrid/s4u.hpp>

#include <map>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/plan/plan.hpp"
#include "sim/simgrid/platform.hpp"

namespace dtsim::sg {

// By rank: the factors of its host's pstates after the first (empty: no contention), and the pstate
// each of its composites runs at while the rank communicates.
struct ContentionRates {
  std::vector<std::vector<double>> factors;
  std::vector<std::map<int, int>> composite_pstate;
};
ContentionRates contention_rates(const ClusterSpec& cluster, const Plan& plan);

class Contention {
 public:
  Contention(const ClusterSpec& cluster, const Plan& plan, const Platform& platform);
  bool on(int rank) const { return !rates_.factors[static_cast<size_t>(rank)].empty(); }
  // The rank's communication in flight: begins and ends nest (a rank can have several at once).
  void begin(int rank);
  void end(int rank);
  // The rank starts computing `op` (a composite runs at its own pstate), or is done with it.
  void computing(int rank, const Op& op);
  void done_computing(int rank);
  // When `work` seconds (at full speed) started at `start` end, at the speeds the rank's host has had
  // since it began computing (a fused run of plain ops: each op's end within the run).
  double finish(int rank, double start, double work) const;

 private:
  struct SpeedChange {
    double time;
    double speed;  // the fraction of full speed from `time` on
  };
  void apply(int rank);
  double speed_of(int rank, int pstate) const;
  const Platform& platform_;
  ContentionRates rates_;
  std::vector<int> communicating_;
  std::vector<int> slowed_;                        // by rank: the pstate while it communicates
  std::vector<std::vector<SpeedChange>> changes_;  // by rank: its speeds since it began computing
};

}  // namespace dtsim::sg
