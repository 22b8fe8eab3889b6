// SimGrid's own host speed and link bandwidth profiles, mixed device types and dynamic batches,
// held to the same closed forms as the analytical engine (tests/sim/analytical/profiles_test.cpp) and to it.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "core/run/metrics.hpp"
#include "tests/support/plan_fixtures.hpp"
#include "tests/support/profile_fixtures.hpp"
#include "tests/support/simulate.hpp"

using namespace dtsim;

namespace {

struct Both {
  test::Run analytical;
  test::Run simgrid;
};

Both run_both(std::vector<std::string> sets) {
  const Scenario s = load_scenario_text(test::kProfileJob, "profiles.yaml", std::move(sets));
  Both b{test::run_records(s), {}};
  b.simgrid.plan = compile_plan(s);
  b.simgrid.records = test::simulate(s.cluster, b.simgrid.plan, Fidelity::Flow).records;
  return b;
}

double iteration_time(const test::Run& r) {
  return compute_metrics(r.plan, r.records, RunInfo{"", "", 0}).iteration_time.mean;
}

// Every op starts and ends at the same time on both engines.
void check_agree(const Both& b, double epsilon) {
  REQUIRE(b.analytical.records.size() == b.simgrid.records.size());
  std::map<std::tuple<int, int, int>, OpRecord> by_op;
  for (const auto& r : b.analytical.records) by_op[{r.rank, r.iteration, r.op}] = r;
  for (const auto& r : b.simgrid.records) {
    const OpRecord& a = by_op.at({r.rank, r.iteration, r.op});
    INFO("rank " << r.rank << " iteration " << r.iteration << " op " << r.op);
    CHECK(r.start == Approx(a.start).epsilon(epsilon).margin(1e-9));
    CHECK(r.end == Approx(a.end).epsilon(epsilon).margin(1e-9));
  }
}

}  // namespace

TEST_CASE("SimGrid speed profiles: constant 1 changes nothing, half speed doubles compute, a dip adds the lost work") {
  const auto base = run_both({});
  const auto one = run_both({"stragglers.speed_profile=" + test::write_temp("sg_one.txt", "0 1\n")});
  check_agree(one, 1e-9);
  // The same records (a rank with a profile issues its ops one by one under contention: another order).
  std::map<std::tuple<int, int, int>, double> base_end;
  for (const auto& r : base.simgrid.records) base_end[{r.rank, r.iteration, r.op}] = r.end;
  REQUIRE(one.simgrid.records.size() == base.simgrid.records.size());
  for (const auto& r : one.simgrid.records)
    CHECK(r.end == Approx(base_end.at({r.rank, r.iteration, r.op})).epsilon(1e-12));

  const auto half = run_both({"stragglers.speed_profile=" + test::write_temp("sg_half.txt", "0 0.5\n")});
  check_agree(half, 1e-9);
  const auto fb_base = test::busy(base.simgrid, true), fb_half = test::busy(half.simgrid, true);
  for (const auto& [key, seconds] : fb_base) CHECK(fb_half.at(key) == Approx(2 * seconds).epsilon(1e-9));

  const double backward_end = test::first_comm(base.simgrid, 1, 0).start;
  const double a = 0.2 * backward_end, b = 0.7 * backward_end, f = 0.25;
  const std::string dip = test::write_temp("sg_dip.txt", fmt::format("{:.17g} {}\n{:.17g} 1\n", a, f, b));
  const auto slowed = run_both({"stragglers.speed_profile=" + dip, "stragglers.profile_workers=1"});
  check_agree(slowed, 1e-9);
  CHECK(test::end_of_run(slowed.simgrid.records) - test::end_of_run(base.simgrid.records) ==
        Approx((b - a) * (1 - f)).epsilon(1e-6));
}

TEST_CASE("SimGrid periodic speed profiles agree with the analytical integration") {
  const auto b =
      run_both({"stragglers.speed_profile=period=7ms,duty=0.3,factor=0.4,offset=2ms", "stragglers.profile_workers=0,3",
                "strategy.allreduce.overlap=true", "strategy.allreduce.bucket_size=25MB"});
  check_agree(b, 1e-6);
  // Factors above 1: a boost from 5 ms on.
  const auto boost = run_both({"stragglers.speed_profile=" + test::write_temp("sg_boost.txt", "0 1\n5ms 2\n")});
  check_agree(boost, 1e-9);
  CHECK(iteration_time(boost.simgrid) < iteration_time(run_both({}).simgrid));
}

TEST_CASE(
    "profiles of more points than SimGrid is fed at once, shared by every host and NIC, agree with the analytical "
    "engine") {
  // SimGrid is fed 4,096 points at a time (sim/simgrid/profile_feeds.cpp); each profile here has about 10,000 points
  // within the run, and every worker (or both NICs) follows the same one.
  const double span = test::end_of_run(run_both({}).simgrid.records);
  const double dt = span / 10000;
  std::string points;
  for (int i = 0; i < 30000; ++i) points += fmt::format("{:.17g} {}\n", i * dt, i % 2 ? 0.5 : 1);
  const auto every_worker = run_both({"stragglers.speed_profile=" + test::write_temp("sg_long.txt", points)});
  check_agree(every_worker, 1e-6);
  CHECK(iteration_time(every_worker.simgrid) > iteration_time(run_both({}).simgrid) * 1.1);

  // Periodic: 3,000 points a period, so the feed wraps within a chunk and a chunk ends within a period.
  std::string period = fmt::format("period {:.17g}\n", 3000 * dt);
  for (int i = 0; i < 3000; ++i) period += fmt::format("{:.17g} {}\n", i * dt, i % 3 ? 0.4 : 1);
  const auto periodic = run_both({"stragglers.speed_profile=" + test::write_temp("sg_periodic.txt", period)});
  check_agree(periodic, 1e-6);

  std::string nic;
  for (int i = 0; i < 30000; ++i) nic += fmt::format("{:.17g} {}\n", i * dt, i % 2 ? 0.25 : 1);
  const auto nics = run_both({"cluster.nodes=2", "cluster.nic_profile=" + test::write_temp("sg_long_nic.txt", nic)});
  check_agree(nics, 1e-6);
}

TEST_CASE("a flapping NIC on SimGrid: the AllReduce ends at the piecewise closed form") {
  const double period = 0.01, duty = 0.4, factor = 0.25;
  const auto b = run_both(
      {"cluster.nodes=2", "cluster.nic_profile=period=10ms,duty=0.4,factor=0.25", "cluster.nic_profile_nodes=1"});
  const double work = 5e7 * 4 / (25e9 / 8);
  for (int it = 0; it < 3; ++it) {
    const OpRecord c = test::first_comm(b.simgrid, 0, it);
    INFO("iteration " << it << " starts its AllReduce at " << c.start << " s");
    CHECK(c.end == Approx(test::flapping_end(c.start, work, period, duty, factor)).epsilon(1e-6));
  }
  check_agree(b, 1e-6);
}

TEST_CASE("a push through a flapping NIC on SimGrid ends at the piecewise closed form, even started in a low phase") {
  const double bytes = 1e8, bw = 12.5e9, period = 0.01, duty = 0.4, factor = 0.25;
  for (double offset : {0.0, 0.005}) {
    ClusterSpec c = test::star_cluster(1, bw, 0);
    c.nic_profile = parse_inline_profile(fmt::format("period=10ms,duty=0.4,factor=0.25,offset={}s", offset), 1);
    Plan plan = test::incast(1, 1, bytes);
    plan.server_nodes = 1;
    INFO("offset " << offset);
    for (const auto& r : test::simulate(c, plan, Fidelity::Flow).records) {
      CHECK(r.end == Approx(test::flapping_end(0, bytes / bw, period, duty, factor, offset)).epsilon(1e-6));
    }
  }
}

TEST_CASE("a flapping NIC in a 4-node ring: SimGrid and the analytical approximation agree") {
  const auto b = run_both({"cluster.nic_profile=period=10ms,duty=0.4,factor=0.25", "cluster.nic_profile_nodes=2"});
  INFO("analytical " << iteration_time(b.analytical) << " s, simgrid " << iteration_time(b.simgrid) << " s");
  CHECK(iteration_time(b.simgrid) == Approx(iteration_time(b.analytical)).epsilon(0.01));
}

TEST_CASE("a mixed cluster on SimGrid: each host at its device's speed, BSP at the slowest type's pace") {
  const auto v100 = run_both({"cluster.device=v100"});
  const auto mix = run_both({"cluster.device_mix=a100_80gb:2,v100:2"});
  check_agree(mix, 1e-9);
  CHECK(iteration_time(mix.simgrid) == Approx(iteration_time(v100.simgrid)).epsilon(1e-9));
  const auto fb = test::busy(mix.simgrid, true);
  CHECK(fb.at({0, 0}) < fb.at({2, 0}) / 1.2);
}

TEST_CASE("dynamic batches on SimGrid: every worker computes n / (n - 1 + 1/k) of a batch's time") {
  const auto base = run_both({});
  const double t0 = test::busy(base.simgrid, true).at({0, 0});
  const auto b = run_both({"stragglers.slow_workers=1", "stragglers.slow_factor=2", "strategy.dynamic_batch=true"});
  for (const auto& [key, seconds] : test::busy(b.simgrid, true)) CHECK(seconds == Approx(t0 * 4 / 3.5).epsilon(1e-9));
  check_agree(b, 1e-9);
  const auto prof = run_both({"stragglers.speed_profile=period=3ms,duty=0.5,factor=0.5", "stragglers.profile_workers=2",
                              "strategy.dynamic_batch=true"});
  check_agree(prof, 1e-6);
}

TEST_CASE("SimGrid runs with profiles, jitter and dynamic batches are reproducible") {
  const std::vector<std::string> sets{"stragglers.jitter=lognormal",
                                      "stragglers.sigma=0.3",
                                      "stragglers.speed_profile=period=3ms,duty=0.5,factor=0.6",
                                      "cluster.nic_profile=period=7ms,duty=0.3,factor=0.5",
                                      "strategy.dynamic_batch=true",
                                      "run.seed=5"};
  const auto a = run_both(sets), b = run_both(sets);
  REQUIRE(a.simgrid.records.size() == b.simgrid.records.size());
  for (size_t i = 0; i < a.simgrid.records.size(); ++i) CHECK(a.simgrid.records[i].end == b.simgrid.records[i].end);
}
