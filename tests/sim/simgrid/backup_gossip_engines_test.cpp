// Backup workers and gossip on SimGrid: the same oracles as on the analytical engine (cancelled
// compute of dropped workers, no barrier for gossip), agreement between engines, seeds.
#include <catch2/catch.hpp>

#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/backup_fixtures.hpp"
#include "tests/support/run_analytical.hpp"
#include "tests/support/simulate.hpp"

using namespace dtsim;

namespace {

// The job of tests/sim/analytical/backup_gossip_test.cpp, over 6 iterations after 1 of warm-up.
Scenario scenario(const std::vector<std::string>& sets) {
  std::vector<std::string> all{"run.iterations=6", "run.warmup=1"};
  all.insert(all.end(), sets.begin(), sets.end());
  return test::backup_ring(all);
}

struct Both {
  Metrics simgrid, analytical;
  std::vector<OpRecord> records;
};

Both run_both(const std::vector<std::string>& sets) {
  const Scenario s = scenario(sets);
  const Plan plan = compile_plan(s);
  Both out;
  out.records = test::simulate(s.cluster, plan, Fidelity::Flow).records;
  out.simgrid = compute_job_metrics(plan, out.records, RunInfo{"simgrid", "flow", 0}).front();
  out.analytical = test::run_analytical(s).front();
  return out;
}

double own_iteration(const RankMetrics& r) { return r.compute_s + r.exposed_comm_s + r.wait_s; }

}  // namespace

TEST_CASE("backup workers on SimGrid recover the baseline and agree with the analytical engine") {
  const Both base = run_both({"strategy.allreduce.overlap=false"});
  const Both one = run_both({"cluster.nodes=9", "sync.policy=backup", "sync.backup_workers=1",
                             "stragglers.slow_workers=2", "stragglers.slow_factor=3"});
  const Both two = run_both({"cluster.nodes=9", "sync.policy=backup", "sync.backup_workers=1",
                             "stragglers.slow_workers=2,6", "stragglers.slow_factor=3"});
  CHECK(one.simgrid.iteration_time.mean == Approx(base.simgrid.iteration_time.mean).epsilon(0.03));
  CHECK(one.simgrid.iteration_time.mean == Approx(one.analytical.iteration_time.mean).epsilon(0.01));
  CHECK(two.simgrid.iteration_time.mean == Approx(two.analytical.iteration_time.mean).epsilon(0.01));
  CHECK(two.simgrid.iteration_time.mean > 2 * base.simgrid.iteration_time.mean);
  CHECK(one.simgrid.throughput_samples_per_s == Approx(8 * 32 / one.simgrid.iteration_time.mean).epsilon(1e-12));
  // The dropped straggler's compute is cancelled at the quorum: it computes no more per iteration
  // than a fast worker, and no worker waits for it at the ring.
  CHECK(one.simgrid.ranks[2].compute_s <= one.simgrid.ranks[0].compute_s * 1.01);
  CHECK(one.simgrid.wait_by_cause.barrier < 0.05 * base.simgrid.iteration_time.mean);
}

TEST_CASE("gossip on SimGrid: no barrier, a straggler leaves the others' rates alone, engines agree") {
  const Both equal = run_both({"sync.policy=gossip"});
  const Both slow = run_both({"sync.policy=gossip", "stragglers.slow_workers=3", "stragglers.slow_factor=4"});
  CHECK(equal.simgrid.wait_by_cause.barrier == 0);
  CHECK(equal.simgrid.wait_fraction < 0.01);
  for (const auto& r : equal.simgrid.ranks) CHECK(r.bytes_sent == Approx(2 * 1e6 * 4).epsilon(1e-12));
  const double fast = own_iteration(equal.simgrid.ranks[0]);
  for (size_t w = 0; w < slow.simgrid.ranks.size(); ++w) {
    if (w == 3) continue;
    INFO("worker " << w);
    CHECK(own_iteration(slow.simgrid.ranks[w]) == Approx(fast).epsilon(0.02));
  }
  CHECK(slow.simgrid.updates_per_s == Approx(slow.analytical.updates_per_s).epsilon(0.02));
  CHECK(equal.simgrid.updates_per_s == Approx(equal.analytical.updates_per_s).epsilon(0.02));
}

TEST_CASE("SimGrid backup and gossip runs are seeded: same seed same records, another seed others") {
  for (const char* policy : {"sync.policy=backup", "sync.policy=gossip"}) {
    const std::vector<std::string> sets{policy, "sync.backup_workers=1", "stragglers.jitter=lognormal",
                                        "stragglers.sigma=0.3"};
    auto records = [&](const char* seed) {
      auto all = sets;
      all.push_back(seed);
      const Scenario s = scenario(all);
      return test::simulate(s.cluster, compile_plan(s), Fidelity::Flow).records;
    };
    const auto a = records("run.seed=3");
    const auto b = records("run.seed=3");
    const auto c = records("run.seed=4");
    INFO(policy);
    REQUIRE(a.size() == b.size());
    bool same = true;
    for (size_t i = 0; i < a.size(); ++i) same = same && a[i].start == b[i].start && a[i].end == b[i].end;
    CHECK(same);
    bool differs = a.size() != c.size();
    for (size_t i = 0; !differs && i < a.size(); ++i) differs = a[i].end != c[i].end;
    CHECK(differs);
  }
}
