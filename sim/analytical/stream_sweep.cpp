// A rank's two streams swept forward together (stream_sweep.hpp).
#include "sim/analytical/stream_sweep.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/base/error.hpp"
#include "core/base/intervals.hpp"

namespace dtsim::analytical {
namespace {

bool has_shape(const RankProgram& rank) {
  for (const Op& op : rank.ops) {
    if (op.period > 1) return false;
    if (std::holds_alternative<CollectiveOp>(op.body)) {
      if (op.stream != Stream::Comm) return false;
      continue;
    }
    if (!is_compute(op.body) || op.stream != Stream::Compute) return false;
    if (const auto* c = std::get_if<ComputeOp>(&op.body); c && c->composite >= 0) return false;
  }
  return true;
}

// The end of `work` full-rate seconds of compute started at `since`: at `kept` of the rate while one
// of `transfers` (in order, none overlapping) is in flight, retimed at each one's start and end.
// `next`: the first transfer that may still be in flight (compute ops come in order of start).
// At full rate the engine's since + work / 1 and work - 1 x (edge - since) are exact without the 1.
double finish(double since, double work, double kept, const std::vector<Interval>& transfers, size_t& next) {
  if (work <= 0) return since;
  if (kept >= 1) return since + work;
  while (next < transfers.size() && transfers[next].second <= since) ++next;
  for (size_t k = next; k < transfers.size();) {
    const auto [first, last] = transfers[k];
    if (first > since) {  // full rate until the next transfer starts
      if (since + work <= first) return since + work;
      work = std::max(0.0, work - (first - since));
      since = first;
    }
    const double end = since + work / kept;
    if (end <= last) return end;
    work = std::max(0.0, work - kept * (last - since));
    since = last;
    ++k;
  }
  return since + work;
}

}  // namespace

std::optional<StreamSweep> StreamSweep::of(const RankProgram& rank) {
  if (!has_shape(rank)) return std::nullopt;
  StreamSweep sweep;
  std::vector<int> compute, comm;  // op ids of each stream, in order
  for (const Op& op : rank.ops) {
    if (op.id != static_cast<int>(compute.size() + comm.size())) throw RuntimeError("plan: op ids out of order");
    for (int d : op.deps) {
      if (d < 0 || d >= op.id) throw RuntimeError("plan: an op depends on a later op");
    }
    (std::holds_alternative<CollectiveOp>(op.body) ? comm : compute).push_back(op.id);
  }
  sweep.collectives_ = comm.size();
  std::vector<char> timed(rank.ops.size(), 0);
  // Op k of a stream: its id and the op before it on the stream (-1 for the first).
  const auto at = [](const std::vector<int>& stream, size_t k) {
    return std::pair{stream[k], k > 0 ? stream[k - 1] : -1};
  };
  const auto ready = [&](std::pair<int, int> op) {
    const auto [i, after] = op;
    const std::vector<int>& deps = rank.ops[static_cast<size_t>(i)].deps;
    return (after < 0 || timed[static_cast<size_t>(after)]) &&
           std::all_of(deps.begin(), deps.end(), [&](int d) { return timed[static_cast<size_t>(d)] != 0; });
  };
  const auto add = [&](std::pair<int, int> op) {
    const auto [i, after] = op;
    Step step{i, std::holds_alternative<CollectiveOp>(rank.ops[static_cast<size_t>(i)].body), after >= 0,
              static_cast<int>(sweep.preds_.size()), 0};
    for (int d : rank.ops[static_cast<size_t>(i)].deps) {
      if (d != after) sweep.preds_.push_back(d);
    }
    step.end_pred = static_cast<int>(sweep.preds_.size());
    sweep.order_.push_back(step);
    timed[static_cast<size_t>(i)] = 1;
  };
  // Every collective whose deps are timed, then the next compute op: a collective left waits for a compute op
  // not timed yet, so it starts after that op's end and cannot run under the compute ops timed before it.
  size_t ci = 0, ki = 0;
  while (ci < compute.size() || ki < comm.size()) {
    for (; ki < comm.size() && ready(at(comm, ki)); ++ki) add(at(comm, ki));
    if (ci == compute.size()) {
      if (ki < comm.size()) throw RuntimeError("plan: a collective waits for an op that never runs");
      break;
    }
    if (!ready(at(compute, ci))) {
      throw RuntimeError("plan: a compute op waits for a collective that waits for a later compute op");
    }
    add(at(compute, ci++));
  }
  return sweep;
}

std::vector<OpRecord> StreamSweep::run(const RankProgram& rank, std::span<const double> seconds,
                                       std::span<const double> host, double kept, int iterations,
                                       Records detail) const {
  std::vector<double> end(order_.size(), 0.0);
  std::vector<Interval> transfers;  // [start, end) of the iteration's transfers so far, in order
  transfers.reserve(collectives_);
  std::vector<OpRecord> on_compute(order_.size() - collectives_), on_comm(collectives_), records;
  records.reserve(order_.size() * static_cast<size_t>(std::max(iterations, 0)));
  const bool runs = detail == Records::Runs;
  double t0 = 0;
  for (int it = 0; it < iterations; ++it) {
    transfers.clear();
    size_t computes = 0, collectives = 0, next = 0;
    double compute_end = t0, comm_end = t0;  // the last end on each stream
    double iteration_end = t0;
    for (const Step& step : order_) {
      // The latest end of its deps and of the op before it on its stream, or the iteration's start.
      double at = step.after_stream ? (step.collective ? comm_end : compute_end) : 0.0;
      for (int p = step.first_pred; p < step.end_pred; ++p) at = std::max(at, end[static_cast<size_t>(preds_[p])]);
      if (!step.after_stream && step.first_pred == step.end_pred) at = t0;
      const auto i = static_cast<size_t>(step.op);
      if (step.collective) {
        const double start = at + host[i];
        const double stop = start + seconds[i];
        if (stop > start) transfers.emplace_back(start, stop);
        on_comm[collectives++] = OpRecord{rank.rank, it, step.op, start, stop};
        end[i] = comm_end = stop;
      } else {
        const double stop = finish(at, seconds[i], kept, transfers, next);
        if (runs && computes > 0 && on_compute[computes - 1].end == at) {
          on_compute[computes - 1].end = stop;
        } else {
          on_compute[computes++] = OpRecord{rank.rank, it, step.op, at, stop};
        }
        end[i] = compute_end = stop;
      }
      iteration_end = std::max(iteration_end, end[i]);
    }
    // Both streams' records are in order of start: merged, the iteration's are too.
    const auto by_start = [](const OpRecord& a, const OpRecord& b) { return a.start < b.start; };
    std::merge(on_compute.begin(), on_compute.begin() + static_cast<std::ptrdiff_t>(computes), on_comm.begin(),
               on_comm.begin() + static_cast<std::ptrdiff_t>(collectives), std::back_inserter(records), by_start);
    t0 = iteration_end;
  }
  return records;
}

}  // namespace dtsim::analytical
