// Waiting by cause (metrics.json wait_by_cause_s): the causes add up to wait_s, a BSP straggler's
// peers wait at the barrier exactly as long as the closed form says, SSP waits at its bound, ASP
// at its server, gossip nowhere, and failures come from the fault report.
#include <catch2/catch.hpp>

#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "sim/faults/evaluate.hpp"
#include "tests/support/run_analytical.hpp"

using namespace dtsim;

namespace {

Metrics run(const std::string& file, std::vector<std::string> sets) {
  return test::run_analytical(load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/" + file, sets)).front();
}

double sum(const WaitCauses& w) { return w.barrier + w.staleness + w.server_busy + w.idle; }

}  // namespace

TEST_CASE("the causes of waiting add up to each rank's waiting under every policy") {
  const std::vector<std::string> slow{"stragglers.slow_workers=1", "stragglers.slow_factor=3", "run.iterations=6"};
  struct Case {
    const char* file;
    std::vector<std::string> sets;
  };
  const std::vector<Case> cases{{"parameter_server.yaml", {"sync.policy=bsp"}},
                                {"parameter_server.yaml", {"sync.policy=ssp", "sync.staleness=1"}},
                                {"parameter_server.yaml", {"sync.policy=asp"}},
                                {"quickstart.yaml", {"sync.policy=bsp"}},
                                {"quickstart.yaml", {"sync.policy=backup", "sync.backup_workers=1"}},
                                {"quickstart.yaml", {"sync.policy=gossip"}},
                                {"quickstart.yaml", {"sync.policy=local_sgd", "sync.period=2"}}};
  for (const auto& c : cases) {
    auto sets = slow;
    sets.insert(sets.end(), c.sets.begin(), c.sets.end());
    const Metrics m = run(c.file, sets);
    INFO(c.file << " " << c.sets.front());
    for (const auto& r : m.ranks) CHECK(sum(r.wait_by_cause) == Approx(r.wait_s).margin(1e-12 + 1e-9 * r.wait_s));
    CHECK(m.wait_by_cause.failure == 0);
  }
}

TEST_CASE("a BSP straggler's peers wait (k-1) x compute at the barrier, and nothing else") {
  const std::vector<std::string> no_overlap{"strategy.allreduce.overlap=false", "run.iterations=3"};
  const Metrics base = run("quickstart.yaml", no_overlap);
  const double compute = base.ranks[0].compute_s;
  for (double k : {2.0, 4.0}) {
    auto sets = no_overlap;
    sets.push_back("stragglers.slow_workers=5");
    sets.push_back("stragglers.slow_factor=" + std::to_string(k));
    const Metrics m = run("quickstart.yaml", sets);
    INFO("k = " << k);
    CHECK(m.ranks[0].wait_by_cause.barrier == Approx((k - 1) * compute).epsilon(1e-9));
    CHECK(m.ranks[0].wait_by_cause.staleness + m.ranks[0].wait_by_cause.server_busy + m.ranks[0].wait_by_cause.idle ==
          0);
    CHECK(m.ranks[5].wait_by_cause.barrier == Approx(0).margin(1e-12));
  }
}

TEST_CASE("SSP waits at its staleness bound, ASP at its server, never at a barrier") {
  const std::vector<std::string> slow{"stragglers.slow_workers=1", "stragglers.slow_factor=3"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), slow.begin(), slow.end());
    return run("parameter_server.yaml", extra);
  };
  const Metrics bsp = with({});
  const Metrics ssp = with({"sync.policy=ssp", "sync.staleness=0"});
  // ASP's server is busy when pushes come after the whole backward pass; pushed during it (the
  // default), its updates of the early shards are done before the pulls and nobody waits here.
  const Metrics asp = with({"sync.policy=asp", "strategy.parameter_server.overlap=false"});
  const Metrics asp_overlapped = with({"sync.policy=asp"});
  // A fast worker: BSP waits at the barrier (the server waits for every push before it answers).
  CHECK(bsp.ranks[0].wait_by_cause.barrier > 0.9 * bsp.ranks[0].wait_s);
  CHECK(bsp.ranks[0].wait_by_cause.staleness == 0);
  // SSP(0) holds the same fast worker at its bound for most of what BSP's barrier cost it.
  CHECK(ssp.ranks[0].wait_by_cause.barrier == 0);
  CHECK(ssp.ranks[0].wait_by_cause.staleness > 0.8 * bsp.ranks[0].wait_by_cause.barrier);
  // ASP: nobody is held; what is left is waiting for the (shared, busy) server to answer.
  CHECK(asp.wait_by_cause.barrier == 0);
  CHECK(asp.wait_by_cause.staleness == 0);
  CHECK(asp.wait_by_cause.server_busy > 0);
  CHECK(asp.wait_by_cause.server_busy == Approx(sum(asp.wait_by_cause)).epsilon(1e-9));
  CHECK(sum(asp_overlapped.wait_by_cause) < asp.wait_by_cause.server_busy);
}

TEST_CASE("failures' waiting is the fault report's lost time per useful iteration") {
  const Scenario s = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/failures_checkpointing.yaml",
                                   {"run.engine=analytical"});
  std::vector<Metrics> jobs = test::run_analytical(s);
  faults::add_fault_reports(s, jobs);
  const Metrics& m = jobs.front();
  REQUIRE(m.faults);
  const FaultReport& f = *m.faults;
  // The horizon is useful work, checkpoints, and failures' losses: failure x useful iterations.
  const double useful_iterations = f.useful_s / m.iteration_time.mean;
  CHECK(f.useful_s + f.checkpoint_s + m.wait_by_cause.failure * useful_iterations == Approx(f.horizon_s).epsilon(1e-6));
  CHECK(m.wait_by_cause.failure > 0);
}
