// The two-stream sweep (sim/analytical/stream_sweep.hpp) against timelines worked out by hand from
// its rules: a compute op at `kept` of its rate while a transfer is in flight, a collective's
// transfer after its host work, each iteration after the one before. (symmetric_test holds the
// sweep equal to the full event loop on every scenario.)
#include <catch2/catch.hpp>

#include <map>

#include "sim/analytical/stream_sweep.hpp"

using namespace dtsim;
using namespace dtsim::analytical;

namespace {

// A program built op by op; each op's cost is pushed beside it.
struct Built {
  RankProgram rank;
  std::vector<double> seconds, host;

  int add(Stream stream, OpBody body, std::vector<int> deps, double s, double h = 0) {
    Op op;
    op.id = static_cast<int>(rank.ops.size());
    op.stream = stream;
    op.deps = std::move(deps);
    op.body = std::move(body);
    rank.ops.push_back(std::move(op));
    seconds.push_back(s);
    host.push_back(h);
    return static_cast<int>(rank.ops.size()) - 1;
  }
  int compute(std::vector<int> deps, double s) { return add(Stream::Compute, ComputeOp{}, std::move(deps), s); }
  int collective(std::vector<int> deps, double s, double h) {
    return add(Stream::Comm, CollectiveOp{}, std::move(deps), s, h);
  }
  std::vector<OpRecord> sweep(double kept, int iterations) {
    const std::optional<StreamSweep> sweep = StreamSweep::of(rank);
    REQUIRE(sweep);
    return sweep->run(rank, seconds, host, kept, iterations);
  }
};

// (start, end) of each op in iteration `it`.
std::map<int, std::pair<double, double>> times(const std::vector<OpRecord>& records, int it) {
  std::map<int, std::pair<double, double>> out;
  for (const OpRecord& r : records) {
    if (r.iteration == it) out[r.op] = {r.start, r.end};
  }
  return out;
}

}  // namespace

// a: 1 s of compute; k: after a, 0.5 s of host work, then a 2 s transfer; b: 3 s of compute after a.
struct OneOverlap {
  Built p;
  int a = p.compute({}, 1.0);
  int k = p.collective({a}, 2.0, 0.5);
  int b = p.compute({}, 3.0);
};

TEST_CASE("a compute op slows to `kept` of its rate while a transfer is in flight") {
  // k's transfer: [1.5, 3.5]. b: 3 s of work from 1 s, at full rate until 1.5 (0.5 done), at half rate until 3.5
  // (1.0 more), the last 1.5 at full rate: ends at 5.
  OneOverlap o;
  const auto records = o.p.sweep(0.5, 2);
  REQUIRE(records.size() == 6);
  const auto first = times(records, 0);
  CHECK(first.at(o.a) == std::pair{0.0, 1.0});
  CHECK(first.at(o.k) == std::pair{1.5, 3.5});
  CHECK(first.at(o.b).first == 1.0);
  CHECK(first.at(o.b).second == Approx(5.0).epsilon(1e-15));
  // The second iteration starts when the first has ended, and repeats it.
  const auto second = times(records, 1);
  CHECK(second.at(o.a).first == Approx(5.0).epsilon(1e-15));
  CHECK(second.at(o.k).first == Approx(6.5).epsilon(1e-15));
  CHECK(second.at(o.b).second == Approx(10.0).epsilon(1e-15));
  // Within an iteration the records come in order of start: a, b, k.
  CHECK(records[0].op == o.a);
  CHECK(records[1].op == o.b);
  CHECK(records[2].op == o.k);
}

TEST_CASE("without contention a compute op lasts its seconds, and the iteration its longest stream") {
  OneOverlap o;
  const auto records = o.p.sweep(1.0, 2);
  const auto first = times(records, 0);
  CHECK(first.at(o.b) == std::pair{1.0, 4.0});
  CHECK(first.at(o.k) == std::pair{1.5, 3.5});
  CHECK(times(records, 1).at(o.a).first == 4.0);
}

TEST_CASE("compute ops that follow each other without a gap are one record when runs are asked for") {
  // a and b back to back: one record [0, 5] named a; k its own; a compute op after a gap starts a new record.
  OneOverlap o;
  const int u = o.p.add(Stream::Compute, UpdateOp{}, {o.k}, 0.5);  // waits for k: 3.5 < 5, no gap
  const int late = o.p.collective({u}, 1.0, 0.0);                  // [5.5, 6.5]
  const int after = o.p.compute({late}, 1.0);                      // waits for it: a gap from 5.5 to 6.5
  const std::optional<StreamSweep> sweep = StreamSweep::of(o.p.rank);
  REQUIRE(sweep);
  const auto runs = sweep->run(o.p.rank, o.p.seconds, o.p.host, 0.5, 1, StreamSweep::Records::Runs);
  REQUIRE(runs.size() == 4);
  CHECK(runs[0].op == o.a);
  CHECK(runs[0].start == 0.0);
  CHECK(runs[0].end == Approx(5.5).epsilon(1e-15));  // a, b (ends at 5) and the update (5 to 5.5)
  CHECK(runs[1].op == o.k);
  CHECK(runs[2].op == late);
  CHECK(runs[3].op == after);
  CHECK(runs[3].start == Approx(6.5).epsilon(1e-15));
  // The same timeline op by op.
  const auto ops = sweep->run(o.p.rank, o.p.seconds, o.p.host, 0.5, 1);
  CHECK(ops.size() == 6);
  CHECK(times(ops, 0).at(u) == std::pair{5.0, 5.5});
}

TEST_CASE("a transfer wholly under a compute op stretches it by its length times (1 - kept)") {
  // k waits for nothing: its transfer [0, 0.25] runs under a, which ends at 1 + 0.25 x (1 - 0.5).
  Built p;
  const int a = p.compute({}, 1.0);
  const int k = p.collective({}, 0.25, 0.0);
  const auto first = times(p.sweep(0.5, 1), 0);
  CHECK(first.at(k) == std::pair{0.0, 0.25});
  CHECK(first.at(a).second == Approx(1.125).epsilon(1e-15));
}

TEST_CASE("collectives run one after the other, and an update waits for the last") {
  // a [0, 1]; k1 after a: [1, 3]; k2 after a too, but after k1 on its stream: [3, 3.5]; the update after
  // both: [3.5, 4]. Nothing computes under the transfers, so contention changes nothing.
  Built p;
  const int a = p.compute({}, 1.0);
  const int k1 = p.collective({a}, 2.0, 0.0);
  const int k2 = p.collective({a}, 0.5, 0.0);
  const int u = p.add(Stream::Compute, UpdateOp{}, {k1, k2}, 0.5);
  const auto first = times(p.sweep(0.25, 1), 0);
  CHECK(first.at(k1) == std::pair{1.0, 3.0});
  CHECK(first.at(k2) == std::pair{3.0, 3.5});
  CHECK(first.at(u) == std::pair{3.5, 4.0});
}

TEST_CASE("a zero-length transfer slows nothing") {
  Built p;
  const int k = p.collective({}, 0.0, 0.0);
  const int a = p.compute({}, 1.0);
  const auto first = times(p.sweep(0.5, 1), 0);
  CHECK(first.at(k) == std::pair{0.0, 0.0});
  CHECK(first.at(a) == std::pair{0.0, 1.0});
}

TEST_CASE("programs of other shapes are not swept") {
  Built posted;
  posted.add(Stream::Posted, SendOp{}, {}, 1.0);
  CHECK_FALSE(StreamSweep::of(posted.rank).has_value());
  Built on_compute;
  on_compute.add(Stream::Compute, CollectiveOp{}, {}, 1.0);
  CHECK_FALSE(StreamSweep::of(on_compute.rank).has_value());
  Built periodic;
  periodic.compute({}, 1.0);
  periodic.rank.ops.edit().back().period = 4;
  CHECK_FALSE(StreamSweep::of(periodic.rank).has_value());
  Built composite;
  ComputeOp c;
  c.composite = 0;
  composite.add(Stream::Compute, c, {}, 1.0);
  CHECK_FALSE(StreamSweep::of(composite.rank).has_value());
}
