// Whether one iteration of a Plan can run to its end, decided without timing: an op becomes ready
// when its deps and the op before it on its FIFO stream have ended; compute ends when ready, a send
// and its receive when both are ready (the engines' rendezvous), a collective when every member of
// its group has reached it. Plans from outside (Chakra traces) are checked with it, so that a
// deadlock is refused naming the op, not found by an engine after the run has started.
#pragma once

#include <optional>

#include "core/plan/plan.hpp"

namespace dtsim {

struct StuckOp {
  int rank = 0;
  int op = 0;
  bool reached = false;  // it became ready and waits for its peer or its group; else for its deps or stream
};

// The first op (by rank, then op) that never ends, preferring one that was reached (the
// communication the others wait behind); nullopt when every op ends. Gates, quorums and gossip
// pass at once (they bound drift between iterations, not the order within one).
std::optional<StuckOp> find_deadlock(const Plan& plan);

}  // namespace dtsim
