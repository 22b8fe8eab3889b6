// The analytical engine against closed forms written out here, independently of the code:
// ring AllReduce, recursive halving-doubling, and a parameter server's incast.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/run/metrics.hpp"
#include "sim/analytical/engine.hpp"
#include "tests/support/plan_fixtures.hpp"

using namespace dtsim;

namespace {
double iteration_time(const ClusterSpec& c, const Plan& p) {
  Recorder rec;
  analytical::AnalyticalExecutor engine(c);
  const RunInfo info = engine.run(p, rec);
  return compute_metrics(p, rec.records(), info).iteration_time.mean;
}
}  // namespace

TEST_CASE("ring AllReduce equals 2(N-1)/N * S/B + 2(N-1)*alpha") {
  const double bw = 12.5e9, alpha = 5e-6;
  for (int n : {2, 3, 8, 16, 64}) {
    for (double s : {1e3, 1e6, 100e6}) {
      const double expected = 2.0 * (n - 1) / n * s / bw + 2.0 * (n - 1) * alpha;
      const double t = iteration_time(test::star_cluster(n, bw, alpha),
                                      test::one_collective(n, s, "ring", CollectiveKind::AllReduce));
      INFO("n=" << n << " S=" << s);
      CHECK(t == Approx(expected).epsilon(1e-9));
    }
  }
}

TEST_CASE("halving-doubling AllReduce equals 2 log2(N) alpha + 2(N-1)/N * S/B") {
  const double bw = 25e9, alpha = 2e-6;
  for (int n : {2, 4, 16, 128}) {
    const double s = 64e6;
    const double expected = 2.0 * std::log2(n) * alpha + 2.0 * (n - 1) / n * s / bw;
    CHECK(iteration_time(test::star_cluster(n, bw, alpha),
                         test::one_collective(n, s, "halving_doubling", CollectiveKind::AllReduce)) ==
          Approx(expected).epsilon(1e-9));
  }
}

TEST_CASE("parameter-server incast: N*S/(k*B) when the server link is the bottleneck") {
  const double bw = 10e9, alpha = 10e-6, s = 40e6;
  for (int n : {1, 4, 16}) {
    for (int k : {1, 2, 4}) {
      // Each worker pushes S/k to each of k shards; each shard's ingress carries N*S/k.
      const double expected = n * (s / k) / bw + alpha;
      const double t = iteration_time(test::star_cluster(n, bw, alpha), test::incast(n, k, s / k));
      INFO("n=" << n << " k=" << k);
      // Workers also send k pushes each over their own NIC: S/B in all, the bound when N < k.
      CHECK(t == Approx(std::max(expected, s / bw + alpha)).epsilon(1e-9));
    }
  }
}

TEST_CASE("more bandwidth is never slower / less latency is never slower") {
  const Plan p = test::one_collective(8, 10e6, "ring", CollectiveKind::AllReduce);
  double last = 1e9;
  for (double bw : {1e9, 5e9, 12.5e9, 50e9}) {
    const double t = iteration_time(test::star_cluster(8, bw, 5e-6), p);
    CHECK(t < last);
    last = t;
  }
  CHECK(iteration_time(test::star_cluster(8, 10e9, 1e-6), p) < iteration_time(test::star_cluster(8, 10e9, 1e-5), p));
}
