// One rank's program timed without an event queue, when its compute ops run one after the other on
// the Compute stream and its collectives one after the other on the Comm stream (a data-parallel
// worker): the two streams are swept forward together.
//
// The analytical engine's rules for such a rank (engine.cpp), in the engine's arithmetic:
//   - a collective starts its transfer `host` seconds after its deps and the collective before it
//     have ended (its whole group arrives at once: the job is symmetric) and lasts `seconds`;
//   - a compute op starts when its deps and the compute op before it have ended (or at the
//     iteration's start when it waits for nothing) and does `seconds` of full-rate work: at
//     `kept` of its rate while one of the rank's transfers is in flight, so where a transfer
//     starts or ends under it the work left is w -= rate x (t - since) and its end
//     since + w / rate (engine.cpp's retime);
//   - an iteration starts when every op of the one before has ended.
// Why no queue is needed: a collective waiting for a compute op that has not been timed yet
// starts after that op ends, so when the next compute op is timed every transfer that can start
// under it is known already.
// Cost: O(ops + deps) per iteration; each compute op walks only the transfers that start or end
// under it.
#pragma once

#include <span>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/run/observer.hpp"

namespace dtsim::analytical {

// Whether the rank's program has that shape: compute (and update) ops on the Compute stream,
// collectives on the Comm stream, no composites, no ops that skip iterations.
bool sweeps_streams(const RankProgram& rank);

// Records of `iterations` iterations of the rank (sweeps_streams() must hold). `seconds` and `host`
// by op: a compute op's full-rate seconds; a collective's transfer seconds and host work before it.
// Within an iteration the records are in order of start.
std::vector<OpRecord> sweep_streams(const RankProgram& rank, std::span<const double> seconds,
                                    std::span<const double> host, double kept, int iterations);

}  // namespace dtsim::analytical
