// Time-varying device speed and NIC bandwidth, mixed device types and dynamic batch sizing on
// the analytical engine, held to closed forms (the SimGrid engine is held to the same in
// tests/sim/simgrid/profiles_engines_test.cpp).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/run/metrics.hpp"
#include "tests/support/plan_fixtures.hpp"
#include "tests/support/profile_fixtures.hpp"

using namespace dtsim;
using test::kProfileJob;

namespace {

Scenario job(std::vector<std::string> sets) {
  return load_scenario_text(kProfileJob, "profiles.yaml", std::move(sets));
}

Metrics metrics_of(const test::Run& r) { return compute_metrics(r.plan, r.records, RunInfo{"analytical", "", 0}); }

bool same_records(const std::vector<OpRecord>& a, const std::vector<OpRecord>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].rank != b[i].rank || a[i].op != b[i].op || a[i].iteration != b[i].iteration || a[i].start != b[i].start ||
        a[i].end != b[i].end) {
      return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("a constant-1 speed profile changes nothing") {
  const std::string one = test::write_temp("one.txt", "# time factor\n0 1\n");
  const auto base = test::run_records(job({}));
  const auto profiled = test::run_records(job({"stragglers.speed_profile=" + one}));
  CHECK(same_records(base.records, profiled.records));
}

TEST_CASE("a profile halving the speed for the whole run doubles every compute time") {
  const std::string half = test::write_temp("half.txt", "0 0.5\n");
  const Metrics base = metrics_of(test::run_records(job({})));
  const Metrics slow = metrics_of(test::run_records(job({"stragglers.speed_profile=" + half})));
  for (size_t r = 0; r < base.ranks.size(); ++r) CHECK(slow.ranks[r].compute_s == Approx(2 * base.ranks[r].compute_s));
  CHECK(slow.iteration_time.mean == Approx(2 * base.ranks[0].compute_s + base.ranks[0].exposed_comm_s).epsilon(1e-12));
}

TEST_CASE("a profile that slows one interval of one worker adds exactly the work it lost") {
  const auto base = test::run_records(job({}));
  const double backward_end = test::first_comm(base, 1, 0).start;  // iteration 0's compute: [0, backward_end)
  const double a = 0.2 * backward_end, b = 0.7 * backward_end, f = 0.25;
  const std::string dip = test::write_temp("dip.txt", fmt::format("{:.17g} {}\n{:.17g} 1\n", a, f, b));
  const auto slowed = test::run_records(job({"stragglers.speed_profile=" + dip, "stragglers.profile_workers=1"}));
  // During [a, b) worker 1 does (b - a) f of the work instead of (b - a); the rest waits for it (BSP).
  CHECK(test::end_of_run(slowed.records) - test::end_of_run(base.records) == Approx((b - a) * (1 - f)).epsilon(1e-9));
  const Metrics m = metrics_of(slowed);  // waits are per iteration: 3 of them
  CHECK(m.ranks[1].wait_s == Approx(0).margin(1e-12));
  CHECK(3 * m.ranks[0].wait_s == Approx((b - a) * (1 - f)).epsilon(1e-9));
}

TEST_CASE("a flapping NIC stretches the AllReduce to the piecewise closed form") {
  const double period = 0.01, duty = 0.4, factor = 0.25;
  const auto r = test::run_records(
      job({"cluster.nodes=2", "cluster.nic_profile=period=10ms,duty=0.4,factor=0.25", "cluster.nic_profile_nodes=1"}));
  const double work = 5e7 * 4 / (25e9 / 8);  // ring AllReduce over 2 nodes: 2 (N-1)/N S/B = S/B
  for (int it = 0; it < 3; ++it) {
    const OpRecord c = test::first_comm(r, 0, it);
    INFO("iteration " << it << " starts its AllReduce at " << c.start << " s");
    CHECK(c.end == Approx(test::flapping_end(c.start, work, period, duty, factor)).epsilon(1e-12));
    CHECK(c.end - c.start > work * 1.5);  // well below the full rate: (0.4 + 0.6 x 0.25) = 0.55 of it
  }
}

TEST_CASE("a push through a flapping NIC ends at the piecewise closed form, whatever phase it starts in") {
  const double bytes = 1e8, bw = 12.5e9, period = 0.01, duty = 0.4, factor = 0.25;
  for (double offset : {0.0, 0.005}) {
    ClusterSpec c = test::star_cluster(1, bw, 0);
    c.nic_profile = parse_inline_profile(fmt::format("period=10ms,duty=0.4,factor=0.25,offset={}s", offset), 1);
    Plan plan = test::incast(1, 1, bytes);
    plan.server_nodes = 1;
    Recorder rec;
    analytical::AnalyticalExecutor(c).run(plan, rec);
    INFO("offset " << offset);
    for (const auto& r : rec.records()) {
      CHECK(r.end == Approx(test::flapping_end(0, bytes / bw, period, duty, factor, offset)).epsilon(1e-12));
    }
  }
}

TEST_CASE("in a mixed cluster each device computes at its own peak and BSP runs at the slowest type's pace") {
  const Metrics a100 = metrics_of(test::run_records(job({})));
  const Metrics v100 = metrics_of(test::run_records(job({"cluster.device=v100"})));
  const Metrics mix = metrics_of(test::run_records(job({"cluster.device_mix=a100_80gb:2,v100:2"})));
  CHECK(v100.ranks[0].compute_s > 1.2 * a100.ranks[0].compute_s);
  for (int r : {0, 1}) CHECK(mix.ranks[r].compute_s == Approx(a100.ranks[r].compute_s).epsilon(1e-12));
  for (int r : {2, 3}) CHECK(mix.ranks[r].compute_s == Approx(v100.ranks[r].compute_s).epsilon(1e-12));
  CHECK(mix.iteration_time.mean == Approx(v100.iteration_time.mean).epsilon(1e-12));
  CHECK(mix.ranks[0].wait_s == Approx(v100.ranks[0].compute_s - a100.ranks[0].compute_s).epsilon(1e-9));
  CHECK(mix.ranks[3].wait_s == Approx(0).margin(1e-12));
}

TEST_CASE("dynamic batches make every worker finish its compute together: time = global batch / sum of rates") {
  const int n = 4;
  const auto base = test::run_records(job({}));
  const double t0 = test::busy(base, true).at({0, 0});  // forward + backward of a full batch
  for (double k : {2.0, 4.0}) {
    const std::string slow = "stragglers.slow_factor=" + std::to_string(k);
    const auto plain = test::run_records(job({"stragglers.slow_workers=1", slow}));
    const auto balanced = test::run_records(job({"stragglers.slow_workers=1", slow, "strategy.dynamic_batch=true"}));
    // Rates: n - 1 workers at 1/t0, one at 1/(k t0); the global batch n takes n / (n - 1 + 1/k) t0.
    const double expected = t0 * n / (n - 1 + 1 / k);
    for (const auto& [key, seconds] : test::busy(balanced, true)) {
      INFO("k " << k << ", rank " << key.first << ", iteration " << key.second);
      CHECK(seconds == Approx(expected).epsilon(1e-9));
    }
    CHECK(test::busy(plain, true).at({1, 0}) == Approx(k * t0).epsilon(1e-12));
    CHECK(metrics_of(balanced).iteration_time.mean < metrics_of(plain).iteration_time.mean);
    CHECK(balanced.plan.jobs[0].samples_per_iteration == plain.plan.jobs[0].samples_per_iteration);
  }
}

TEST_CASE("dynamic batches on a mixed cluster and under a slow profile balance from the measured speeds") {
  const auto a100 = test::run_records(job({}));
  const auto v100 = test::run_records(job({"cluster.device=v100"}));
  const double ta = test::busy(a100, true).at({0, 0}), tv = test::busy(v100, true).at({0, 0});
  const auto mix = test::run_records(job({"cluster.device_mix=a100_80gb:2,v100:2", "strategy.dynamic_batch=true"}));
  const double expected = 4 / (2 / ta + 2 / tv);
  for (const auto& [key, seconds] : test::busy(mix, true)) CHECK(seconds == Approx(expected).epsilon(1e-9));

  // A worker at half speed from the start: iteration 0 cannot know (equal shares), iteration 1 on
  // balance from what iteration 0 measured.
  const std::string half = test::write_temp("half_dyn.txt", "0 0.5\n");
  const auto prof = test::run_records(
      job({"stragglers.speed_profile=" + half, "stragglers.profile_workers=2", "strategy.dynamic_batch=true"}));
  const auto fb = test::busy(prof, true);
  CHECK(fb.at({2, 0}) == Approx(2 * ta).epsilon(1e-12));
  for (int it = 1; it < 3; ++it) {
    for (int r = 0; r < 4; ++r) CHECK(fb.at({r, it}) == Approx(4 / (3 / ta + 0.5 / ta)).epsilon(1e-9));
  }
}

TEST_CASE("profiles, jitter and dynamic batches are reproducible: same seed, same run") {
  const std::vector<std::string> sets{"stragglers.jitter=lognormal",
                                      "stragglers.sigma=0.3",
                                      "stragglers.speed_profile=period=3ms,duty=0.5,factor=0.6",
                                      "cluster.nic_profile=period=7ms,duty=0.3,factor=0.5",
                                      "strategy.dynamic_batch=true",
                                      "run.iterations=6"};
  auto with_seed = [&](int seed) {
    auto s = sets;
    s.push_back("run.seed=" + std::to_string(seed));
    return test::run_records(job(s)).records;
  };
  CHECK(same_records(with_seed(3), with_seed(3)));
  CHECK_FALSE(same_records(with_seed(3), with_seed(4)));
}

TEST_CASE("bad profiles, mixes and dynamic batches are refused with what is valid") {
  const std::string bad = test::write_temp("bad.txt", "0 1\n5s fast\n");
  auto message = [](std::vector<std::string> sets) {
    try {
      job(std::move(sets));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message({"stragglers.speed_profile=" + bad}) ==
        bad +
            ":2:1: error: '5s fast' is not a profile point (use `time factor`, e.g. `10s 0.5`, with factor a number "
            "> 0 and times increasing, or `period 60s`)");
  const std::string late = test::write_temp("late.txt", "0 1\n5 0.5\nperiod 4\n");
  CHECK(message({"stragglers.speed_profile=" + late}) ==
        late + ":3:1: error: period 4 s must exceed the last time of the profile (5 s)");
  const std::string over = test::write_temp("over.txt", "0 1.5\n");
  CHECK(message({"cluster.nic_profile=" + over}).find(":1:1: error: '0 1.5' is not a profile point") !=
        std::string::npos);
  CHECK(message({"stragglers.speed_profile=/nonexistent/p.txt"}) ==
        "--set stragglers.speed_profile=/nonexistent/p.txt: error: stragglers.speed_profile: no such file "
        "'/nonexistent/p.txt' (give a profile file, or e.g. period=2s,duty=0.5,factor=0.25)");
  CHECK(message({"cluster.nic_profile=period=1s,duty=2,factor=0.5"}).find("is not a profile") != std::string::npos);
  CHECK(message({"cluster.device_mix=a100_80gb:2,v100:1"}) ==
        "--set cluster.device_mix=a100_80gb:2,v100:1: error: cluster.device_mix: the counts sum to 3 nodes but the "
        "cluster has 4");
  CHECK(message({"cluster.device_mix=a100_80gb:2,tpu:2"}).find("cluster.device_mix: ") != std::string::npos);
  CHECK(message({"stragglers.profile_workers=4", "stragglers.speed_profile=period=1s,duty=0.5,factor=0.5"}) ==
        "--set stragglers.profile_workers=4: error: stragglers.profile_workers: worker 4 does not exist (valid: 0..3)");
  CHECK(message({"cluster.transport=tcp", "cluster.nic_profile=period=1s,duty=0.5,factor=0.5"}).find("rdma only") !=
        std::string::npos);
  CHECK(message({"cluster.transport=tcp", "cluster.nic_profile=period=1s,duty=0.5,factor=0.5",
                 "run.engine=analytical"}) == "no error");
  CHECK(message({"strategy.dynamic_batch=true", "sync.policy=local_sgd"}).find("balances bsp jobs only") !=
        std::string::npos);
}
