// The launcher-free mode's ranks: one thread per rank in one process (one per GPU of the node, as
// nccl-tests runs with -g), coordinating through shared memory instead of MPI. `dtsim-real
// --backend cuda` and `dtsim calibrate --backend cuda` use it when no MPI launcher started them.
#pragma once

#include <functional>

#include "core/base/error.hpp"
#include "real/host_comm.hpp"

namespace dtsim::real {

// Thrown out of a collective call of one rank when another rank of its team failed, so that no
// rank waits forever for a peer that has gone.
class TeamAborted : public RuntimeError {
 public:
  TeamAborted() : RuntimeError("stopped: another rank of this process failed") {}
};

// Runs body(comm) on `ranks` threads, rank r on thread r, each with its HostComm of the team.
// Returns the largest exit code the bodies returned. When a body throws, the other ranks are
// released from their collective calls (TeamAborted), and once every thread has ended the first
// failure (by rank, TeamAborted aside) is rethrown.
int run_team(int ranks, const std::function<int(HostComm&)>& body);

}  // namespace dtsim::real
