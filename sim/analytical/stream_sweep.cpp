// A rank's two streams swept forward together (stream_sweep.hpp).
#include "sim/analytical/stream_sweep.hpp"

#include <algorithm>
#include <limits>

#include "core/base/error.hpp"
#include "core/base/intervals.hpp"

namespace dtsim::analytical {

bool sweeps_streams(const RankProgram& rank) {
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

namespace {

// One iteration of the sweep; `transfers` and the streams' records are this iteration's.
class Sweep {
 public:
  Sweep(const RankProgram& rank, std::span<const double> seconds, std::span<const double> host, double kept)
      : rank_(rank), seconds_(seconds), host_(host), kept_(kept), end_(rank.ops.size()), done_(rank.ops.size()) {
    for (const Op& op : rank.ops) (std::holds_alternative<CollectiveOp>(op.body) ? comm_ : compute_).push_back(op.id);
  }

  // Appends iteration `it`, started at t0, to `records`; returns its end.
  double run(int it, double t0, std::vector<OpRecord>& records) {
    std::fill(done_.begin(), done_.end(), 0);
    transfers_.clear();
    on_compute_.clear();
    on_comm_.clear();
    size_t ci = 0, ki = 0;
    next_transfer_ = 0;
    double iteration_end = t0;
    const auto time = [&](int i, double start, double end, std::vector<OpRecord>& stream) {
      end_[static_cast<size_t>(i)] = end;
      done_[static_cast<size_t>(i)] = 1;
      iteration_end = std::max(iteration_end, end);
      stream.push_back(OpRecord{rank_.rank, it, i, start, end});
    };
    while (ci < compute_.size() || ki < comm_.size()) {
      // Every collective whose deps have ended: each later one waits for a compute op not timed yet.
      double at = 0;
      while (ki < comm_.size() && ready(comm_[ki], ki > 0 ? comm_[ki - 1] : -1, t0, at)) {
        const int i = comm_[ki++];
        const double start = at + host_[static_cast<size_t>(i)];
        const double end = start + seconds_[static_cast<size_t>(i)];
        if (end > start) transfers_.emplace_back(start, end);
        time(i, start, end, on_comm_);
      }
      if (ci == compute_.size()) {
        if (ki < comm_.size()) throw RuntimeError("stream sweep: a collective waits for an op that never runs");
        break;
      }
      const int i = compute_[ci];
      if (!ready(i, ci > 0 ? compute_[ci - 1] : -1, t0, at)) {
        throw RuntimeError("stream sweep: a compute op waits for a collective that waits for a later compute op");
      }
      ++ci;
      time(i, at, finish(at, seconds_[static_cast<size_t>(i)]), on_compute_);
    }
    // Both streams' records are in order of start: merged, the iteration's are too.
    const size_t from = records.size();
    records.resize(from + on_compute_.size() + on_comm_.size());
    std::merge(on_compute_.begin(), on_compute_.end(), on_comm_.begin(), on_comm_.end(),
               records.begin() + static_cast<std::ptrdiff_t>(from),
               [](const OpRecord& a, const OpRecord& b) { return a.start < b.start; });
    return iteration_end;
  }

 private:
  // Whether op i's deps and `after` (the op before it on its stream, or -1) have ended; `at` is then
  // the latest of their ends, or t0 when it waits for nothing.
  bool ready(int i, int after, double t0, double& at) const {
    const Op& op = rank_.ops[static_cast<size_t>(i)];
    bool waits = false;
    at = 0;
    const auto wait_for = [&](int d) {
      if (!done_[static_cast<size_t>(d)]) return false;
      at = std::max(at, end_[static_cast<size_t>(d)]);
      waits = true;
      return true;
    };
    for (int d : op.deps) {
      if (!wait_for(d)) return false;
    }
    if (after >= 0 && !wait_for(after)) return false;
    if (!waits) at = t0;
    return true;
  }

  // The end of `work` full-rate seconds of compute started at `since`: at `kept` of the rate while a
  // transfer is in flight, retimed at each transfer's start and end.
  double finish(double since, double work) {
    if (work <= 0) return since;
    if (kept_ >= 1) return since + work;
    while (next_transfer_ < transfers_.size() && transfers_[next_transfer_].second <= since) ++next_transfer_;
    for (size_t k = next_transfer_;;) {
      const bool in_flight = k < transfers_.size() && transfers_[k].first <= since;
      const double rate = in_flight ? kept_ : 1.0;
      const double end = since + work / rate;
      const double edge = k == transfers_.size() ? std::numeric_limits<double>::infinity()
                          : in_flight            ? transfers_[k].second
                                                 : transfers_[k].first;
      if (end <= edge) return end;
      work = std::max(0.0, work - rate * (edge - since));
      since = edge;
      if (in_flight) ++k;
    }
  }

  const RankProgram& rank_;
  std::span<const double> seconds_, host_;
  double kept_;
  std::vector<int> compute_, comm_;  // op ids of each stream, in order
  std::vector<double> end_;
  std::vector<char> done_;
  std::vector<Interval> transfers_;  // [start, end) of the iteration's transfers so far, in order
  size_t next_transfer_ = 0;         // the first that may still be in flight at the next compute op's start
  std::vector<OpRecord> on_compute_, on_comm_;
};

}  // namespace

std::vector<OpRecord> sweep_streams(const RankProgram& rank, std::span<const double> seconds,
                                    std::span<const double> host, double kept, int iterations) {
  Sweep sweep(rank, seconds, host, kept);
  std::vector<OpRecord> records;
  records.reserve(rank.ops.size() * static_cast<size_t>(std::max(iterations, 0)));
  double t0 = 0;
  for (int it = 0; it < iterations; ++it) t0 = sweep.run(it, t0, records);
  return records;
}

}  // namespace dtsim::analytical
