// One rank's program timed without an event queue, when its compute ops run one after the other on
// the Compute stream and its collectives one after the other on the Comm stream (a data-parallel
// worker): the two streams are swept forward together.
//
// The analytical engine's rules for such a rank (engine.cpp and its concerns), in the engine's arithmetic:
//   - a collective starts its transfer `host` seconds after its deps and the collective before it
//     have ended (its whole group arrives at once: the job is symmetric) and lasts `seconds`;
//   - a compute op starts when its deps and the compute op before it have ended (or at the
//     iteration's start when it waits for nothing) and does `seconds` of full-rate work: at
//     `kept` of its rate while one of the rank's transfers is in flight, so where a transfer
//     starts or ends under it the work left is w -= rate x (t - since) and its end
//     since + w / rate (contention.cpp's retime);
//   - an iteration starts when every op of the one before has ended.
// Why no queue is needed: a collective waiting for a compute op that has not been timed yet
// starts after that op ends, so when the next compute op is timed every transfer that can start
// under it is known already.
// The order depends on the deps alone: a collective is timed as soon as its deps are, each compute
// op after every collective that can be. Cost: O(ops + deps) per iteration; each compute op walks only the transfers
// that start or end under it.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/run/observer.hpp"

namespace dtsim::analytical {

// A program of that shape (compute and update ops on the Compute stream, collectives on the Comm
// stream, no composites, no ops that skip iterations) with the order its ops are timed in: made
// once per program, run for any costs.
class StreamSweep {
 public:
  // nullopt for a program of another shape. Throws RuntimeError when an op waits for a later one.
  static std::optional<StreamSweep> of(const RankProgram& rank);

  // Records of `iterations` iterations of `rank` (the program this was made of). `seconds` and
  // `host` by op: a compute op's full-rate seconds; a collective's transfer seconds and the host
  // work before it. Within an iteration the records are in order of start.
  // Records::Runs: compute ops that start where the one before ends are one record, named by the first op
  // (the unions of busy time the metrics count, and the ops that end a gap, are the same; a metrics run
  // reads a tenth of the records).
  enum class Records { Ops, Runs };
  std::vector<OpRecord> run(const RankProgram& rank, std::span<const double> seconds, std::span<const double> host,
                            double kept, int iterations, Records records = Records::Ops) const;

 private:
  struct Step {
    int op = 0;
    bool collective = false;
    bool after_stream = false;  // it waits for the op before it on its stream
    int first_pred = 0;         // its other deps: preds_[first_pred, end_pred)
    int end_pred = 0;
  };
  std::vector<Step> order_;  // every op, in the order the sweep times them
  std::vector<int> preds_;
  size_t collectives_ = 0;  // of order_'s steps
};

}  // namespace dtsim::analytical
