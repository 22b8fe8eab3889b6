// Backup workers (Chen et al. 2016) and gossip (AD-PSGD) on the analytical engine: the oracles of
// the asynchronous-training issue, seeds, and the errors of bad sync keys.
#include <catch2/catch.hpp>

#include <set>

#include "core/base/error.hpp"
#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/backup_fixtures.hpp"
#include "tests/support/run_analytical.hpp"

using namespace dtsim;

namespace {

Scenario scenario(const std::vector<std::string>& sets) { return test::backup_ring(sets); }
Metrics run(std::vector<std::string> sets) { return test::run_analytical(scenario(std::move(sets))).front(); }

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string error_of(const std::vector<std::string>& sets) {
  try {
    scenario(sets);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// A worker's own iteration (asynchronous jobs measure each worker over its own window).
double own_iteration(const RankMetrics& r) { return r.compute_s + r.exposed_comm_s + r.wait_s; }

}  // namespace

TEST_CASE("backup workers with no backup are BSP without overlap") {
  const Metrics bsp =
      run({"strategy.allreduce.overlap=false", "stragglers.slow_workers=2", "stragglers.slow_factor=3"});
  const Metrics b0 =
      run({"sync.policy=backup", "sync.backup_workers=0", "stragglers.slow_workers=2", "stragglers.slow_factor=3"});
  CHECK(b0.iteration_time.mean == Approx(bsp.iteration_time.mean).epsilon(1e-12));
  CHECK(b0.throughput_samples_per_s == Approx(bsp.throughput_samples_per_s).epsilon(1e-12));
}

TEST_CASE("b backup workers recover the no-straggler iteration time when at most b workers straggle") {
  // Baseline: N = 8 equal workers under BSP. Backup: N + b workers, b of them spares.
  const Metrics base = run({"strategy.allreduce.overlap=false"});
  const double compute = base.ranks[0].compute_s;
  const double k = 3;
  for (int b : {1, 2}) {
    const std::string nodes = "cluster.nodes=" + std::to_string(8 + b);
    std::vector<std::string> slow{"stragglers.slow_factor=3", "stragglers.slow_workers=1"};
    if (b == 2) slow.back() = "stragglers.slow_workers=1,5";
    const Metrics backup = run(with({nodes, "sync.policy=backup", "sync.backup_workers=" + std::to_string(b)}, slow));
    const Metrics bsp = run(with({nodes}, slow));
    INFO(b << " backup workers, " << b << " stragglers");
    // Near baseline: the ring over N + b instead of N workers differs by a few per cent of communication.
    CHECK(backup.iteration_time.mean == Approx(base.iteration_time.mean).epsilon(0.03));
    // Plain BSP pays the straggler's k x compute every iteration.
    CHECK(bsp.iteration_time.mean > (k - 0.1) * compute);
    // samples/s counts the N kept gradients only.
    CHECK(backup.throughput_samples_per_s == Approx(8 * 32 / backup.iteration_time.mean).epsilon(1e-12));
    // The fast workers barely wait: the others' barrier wait is gone.
    CHECK(backup.wait_by_cause.barrier < 0.05 * base.iteration_time.mean);
    CHECK(bsp.wait_by_cause.barrier > (k - 1.5) * compute);
  }
}

TEST_CASE("backup workers degrade once more than b workers straggle") {
  const Metrics base = run({"strategy.allreduce.overlap=false"});
  const double compute = base.ranks[0].compute_s;
  // One backup, two stragglers 3x slower: the 8th gradient is a straggler's.
  const Metrics two = run({"cluster.nodes=9", "sync.policy=backup", "sync.backup_workers=1",
                           "stragglers.slow_workers=1,5", "stragglers.slow_factor=3"});
  CHECK(two.iteration_time.mean > 2.9 * compute);
  CHECK(two.iteration_time.mean > 2 * base.iteration_time.mean);
}

TEST_CASE("backup workers drop the slowest gradients when every worker jitters") {
  // Exponential tails: keeping the first 7 of 8 cuts the tail of the iteration time.
  const std::vector<std::string> jitter{"stragglers.jitter=exponential", "stragglers.tail_mean=0.5",
                                        "run.iterations=60"};
  const Metrics bsp = run(jitter);
  const Metrics backup = run(with({"sync.policy=backup", "sync.backup_workers=1"}, jitter));
  CHECK(backup.iteration_time.mean < bsp.iteration_time.mean);
  CHECK(backup.iteration_time.p99 < bsp.iteration_time.p99);
}

TEST_CASE("gossip with equal workers never waits for a barrier") {
  const Metrics m = run({"sync.policy=gossip"});
  CHECK(m.asynchronous);
  CHECK(m.wait_by_cause.barrier == 0);
  CHECK(m.wait_fraction < 0.01);
  // Every worker exchanges whole models with a peer: its model bytes both ways per update.
  for (const auto& r : m.ranks) CHECK(r.bytes_sent == Approx(2 * 1e6 * 4).epsilon(1e-12));
  CHECK(m.updates_per_s == Approx(8 / own_iteration(m.ranks[0])).epsilon(0.02));
}

TEST_CASE("a gossip straggler does not slow the others' updates, unlike BSP") {
  const Metrics equal = run({"sync.policy=gossip"});
  const std::vector<std::string> slow{"stragglers.slow_workers=3", "stragglers.slow_factor=4"};
  const Metrics gossip = run(with({"sync.policy=gossip"}, slow));
  const Metrics bsp = run(slow);
  const double fast = own_iteration(equal.ranks[0]);
  for (size_t w = 0; w < gossip.ranks.size(); ++w) {
    if (w == 3) continue;
    INFO("worker " << w);
    CHECK(own_iteration(gossip.ranks[w]) == Approx(fast).epsilon(0.02));
  }
  CHECK(own_iteration(gossip.ranks[3]) > 3.5 * fast);
  // Seven workers at the full rate plus a quarter of one; BSP runs all eight at the straggler's pace.
  CHECK(gossip.updates_per_s > 7 * equal.updates_per_s / 8);
  CHECK(bsp.iteration_time.mean > 3.5 * fast);
}

TEST_CASE("gossip peers are other workers, seeded") {
  const Plan a = compile_plan(scenario({"sync.policy=gossip", "run.iterations=40", "run.seed=1"}));
  const Plan b = compile_plan(scenario({"sync.policy=gossip", "run.iterations=40", "run.seed=1"}));
  const Plan c = compile_plan(scenario({"sync.policy=gossip", "run.iterations=40", "run.seed=2"}));
  CHECK(a.gossip_peer == b.gossip_peer);
  CHECK(a.gossip_peer != c.gossip_peer);
  for (int w : a.jobs[0].workers) {
    std::set<int> peers(a.gossip_peer[w].begin(), a.gossip_peer[w].end());
    CHECK(peers.count(w) == 0);
    CHECK(peers.size() == 7);  // 42 uniform draws over 7 peers miss none (chance ~ 1e-2 per worker, fixed seed)
  }
}

TEST_CASE("same seed, same result, another seed, another result (backup and gossip)") {
  for (const char* policy : {"sync.policy=backup", "sync.policy=gossip"}) {
    const std::vector<std::string> sets{policy, "sync.backup_workers=1", "stragglers.jitter=lognormal",
                                        "stragglers.sigma=0.3"};
    const Metrics one = run(with(sets, {"run.seed=7"}));
    const Metrics again = run(with(sets, {"run.seed=7"}));
    const Metrics other = run(with(sets, {"run.seed=8"}));
    INFO(policy);
    CHECK(one.iteration_time.mean == again.iteration_time.mean);
    CHECK(one.updates_per_s == again.updates_per_s);
    CHECK(one.updates_per_s != other.updates_per_s);
  }
}

TEST_CASE("bad backup and gossip settings are errors that say what is valid") {
  CHECK(error_of({"sync.policy=backup", "sync.backup_workers=-1"}) ==
        "--set sync.backup_workers=-1: error: sync.backup_workers: '-1' is not a count (use a whole number such as 8)");
  CHECK(error_of({"sync.policy=backup", "sync.backup_workers=8"}) ==
        "--set sync.backup_workers=8: error: sync.backup_workers: 8 backup workers leave no gradient to keep (the job "
        "has 8 workers: use 0..7)");
  CHECK(error_of({"sync.policy=backup", "strategy.kind=parameter_server"}) ==
        "--set sync.policy=backup: error: sync.policy: 'backup' is modelled for AllReduce jobs (set strategy.kind: "
        "allreduce); a parameter server's answer to stragglers is asp or ssp");
  CHECK(error_of({"sync.policy=gossip", "strategy.kind=parameter_server"}).find("'gossip' is modelled for AllReduce") !=
        std::string::npos);
  CHECK(error_of({"sync.policy=gossip", "cluster.nodes=1"}) ==
        "--set sync.policy=gossip: error: sync.policy: 'gossip' needs at least 2 workers (the job has 1)");
  CHECK(error_of({"sync.policy=gossip", "compression.method=topk"}) ==
        "--set compression.method=topk: error: compression.method: gossip exchanges whole models, uncompressed (use "
        "compression.method: none)");
  CHECK(error_of({"sync.policy=backups"})
            .find("(valid: bsp, asp, ssp, local_sgd, backup, gossip) (did you mean 'backup'?)") != std::string::npos);
}

TEST_CASE("a dropped worker's compute is cut off when the N-th gradient is ready") {
  const Scenario s = scenario({"cluster.nodes=4", "sync.policy=backup", "sync.backup_workers=1",
                               "stragglers.slow_workers=2", "stragglers.slow_factor=3", "run.iterations=3"});
  const Plan plan = compile_plan(s);
  Recorder rec;
  analytical::AnalyticalExecutor(s.cluster).run(plan, rec);
  const RankProgram& straggler = plan.ranks[plan.jobs[0].workers[2]];
  int quorum = -1;
  for (const Op& op : straggler.ops) {
    if (std::holds_alternative<QuorumOp>(op.body)) quorum = op.id;
  }
  REQUIRE(quorum > 0);
  for (int it = 0; it < plan.warmup + plan.iterations; ++it) {
    double passed = -1, last_cut = -1;
    int before = 0;
    for (const auto& r : rec.records()) {
      if (r.iteration != it) continue;
      if (r.rank == 0 && r.op == quorum) passed = r.end;
      if (r.rank == straggler.rank && r.op < quorum) {
        ++before;
        last_cut = std::max(last_cut, r.end);
      }
    }
    INFO("iteration " << it);
    CHECK(last_cut == passed);  // the straggler stops computing the moment the quorum passes
    CHECK(before < quorum);     // and its later forward/backward ops never ran
  }
}
