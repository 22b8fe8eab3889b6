// The SimGrid replay tells communications apart by what they are (models/cost/comm_keys.hpp), not by numbers
// packed into one integer: a message's start is the latest arrival of its own two parties, whatever
// its tag, even when another message's (source, destination, tag) once packed to the same key
// (destination * 65536 + tag collided at tag 65536).
#include <catch2/catch.hpp>

#include "tests/support/plan_fixtures.hpp"
#include "tests/support/simulate.hpp"

using namespace dtsim;
using test::op_of;
using test::rank_of;

namespace {

const OpRecord& record_of(const std::vector<OpRecord>& records, int rank, int op) {
  for (const OpRecord& r : records) {
    if (r.rank == rank && r.op == op) return r;
  }
  throw std::runtime_error("no record");
}

}  // namespace

TEST_CASE("a message's start is its own parties' latest arrival, whatever its tag") {
  // Rank 0 posts two sends at 0: a long one to rank 1 with tag `big_tag`, which rank 1 receives at
  // once, and a short one to rank 2 with tag 0, which rank 2 receives after `busy` seconds of compute.
  // The long message starts at 0; the short one at `busy`, while the long one is still on the wire.
  const double bw = 1e9, alpha = 1e-6;
  const ClusterSpec cluster = test::star_cluster(3, bw, alpha);
  const double long_bytes = 1e9;                                                           // about 1 s
  const double busy_flops = 0.25 * cluster.device.peak(Dtype::Fp32) * cluster.efficiency;  // 0.25 s
  for (const int big_tag : {1, 65536}) {
    Plan p;
    p.name = "two messages";
    p.iterations = 1;
    p.jobs.push_back(JobPlan{"job", {0, 1, 2}, {}, 3});
    p.ranks.push_back(rank_of(0, {op_of(0, Stream::Posted, Phase::Communication, SendOp{1, long_bytes, big_tag}),
                                  op_of(1, Stream::Posted, Phase::Communication, SendOp{2, 1e3, 0})}));
    p.ranks.push_back(rank_of(1, {op_of(0, Stream::Posted, Phase::Communication, RecvOp{0, long_bytes, big_tag})}));
    p.ranks.push_back(rank_of(2, {op_of(0, Stream::Compute, Phase::Forward, ComputeOp{busy_flops, 0}),
                                  op_of(1, Stream::Comm, Phase::Communication, RecvOp{0, 1e3, 0}, {0})}));
    for (const Fidelity fidelity : {Fidelity::Flow, Fidelity::Step}) {
      const auto records = test::simulate(cluster, p, fidelity).records;
      INFO("tag " << big_tag);
      const OpRecord& long_send = record_of(records, 0, 0);
      const OpRecord& short_send = record_of(records, 0, 1);
      CHECK(long_send.start == 0);
      CHECK(record_of(records, 1, 0).start == 0);
      CHECK(long_send.end > 0.9);
      CHECK(short_send.start == Approx(0.25));
      CHECK(short_send.end < long_send.end);
      CHECK(record_of(records, 2, 1).start == Approx(0.25));
    }
  }
}
