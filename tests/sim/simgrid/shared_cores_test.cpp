// Ranks beyond a calibrated machine's cores on SimGrid (sim/simgrid/shared_cores.cpp): queued one op
// at a time as the analytical engine does (the default), or sharing the core's speed (SimGrid's
// processor sharing, CoreSharing::Processor); the closed forms of both, and what tells them apart.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "sim/analytical/engine.hpp"
#include "tests/support/calibrated_fixtures.hpp"
#include "tests/support/simulate.hpp"

using namespace dtsim;

namespace {

struct Outcome {
  std::vector<OpRecord> records;
  double iteration = 0;  // mean iteration time
};

Outcome outcome(const Plan& plan, std::vector<OpRecord> records, const char* engine) {
  const double mean = compute_job_metrics(plan, records, RunInfo{engine, "", 0}).front().iteration_time.mean;
  return Outcome{std::move(records), mean};
}

Outcome on_analytical(const Scenario& s, const Plan& plan) {
  Recorder rec;
  analytical::AnalyticalExecutor(s.cluster).run(plan, rec);
  return outcome(plan, rec.records(), "analytical");
}

Outcome simgrid(const Scenario& s, const Plan& plan, sg::CoreSharing sharing) {
  return outcome(plan, test::simulate(s.cluster, plan, s.run.fidelity, true, sharing).records, "simgrid");
}

// The records of `rank`'s ops whose label starts with `prefix`.
std::vector<OpRecord> ops(const Plan& plan, const Outcome& o, int rank, const std::string& prefix) {
  std::vector<OpRecord> out;
  for (const OpRecord& r : o.records) {
    if (r.rank == rank && plan.ranks[r.rank].ops[r.op].label.rfind(prefix, 0) == 0) out.push_back(r);
  }
  std::sort(out.begin(), out.end(), [](const OpRecord& a, const OpRecord& b) { return a.start < b.start; });
  return out;
}

// Seconds during which two sets of op intervals overlap.
double overlap(const std::vector<OpRecord>& a, const std::vector<OpRecord>& b) {
  double total = 0;
  for (const OpRecord& x : a) {
    for (const OpRecord& y : b) total += std::max(0.0, std::min(x.end, y.end) - std::max(x.start, y.start));
  }
  return total;
}

}  // namespace

TEST_CASE("ranks sharing a core take turns on SimGrid as on the analytical engine, or share its speed",
          "[simgrid][calibrated][shared-cores]") {
  // 4 ranks on a 2-core profile measured with 4 ranks: ranks 0 and 2 compute on core 0, each running
  // the same 4 forward ops of t (10 us + 1 MFLOP / 10 GFLOP/s) at the same moments.
  const std::string four = test::edited_profile("sg-cores4", "  ranks: 2", "  ranks: 4");
  const Scenario s =
      load_scenario(test::kCalibScenario, {"cluster.devices_per_node=4", "strategy.allreduce.bucket_size=400KB",
                                           "cluster.calibration=" + four, "run.iterations=3"});
  const Plan plan = compile_plan(s);
  const Outcome a = on_analytical(s, plan);
  const Outcome queue = simgrid(s, plan, sg::CoreSharing::Queue);
  const Outcome shared = simgrid(s, plan, sg::CoreSharing::Processor);
  // The core's last op ends at the same moment either way: 2 x compute, the ring, 2 x update.
  const double closed = 2 * test::kCompute + 6 * test::link_time(100e3) + 2 * test::kUpdate;
  for (const Outcome* o : {&a, &queue, &shared}) CHECK(o->iteration == Approx(closed).epsilon(1e-3));
  const auto fwd = [&](const Outcome& o, int rank) { return ops(plan, o, rank, "fwd"); };
  REQUIRE(fwd(queue, 0).size() == 4 * 4);  // 4 layers x (warm-up + 3 iterations)
  for (const Outcome* o : {&a, &queue}) {
    // Queued: each op lasts t, and the two ranks of a core never compute at once.
    for (const OpRecord& r : fwd(*o, 2)) CHECK(r.end - r.start == Approx(test::kForwardOp).epsilon(1e-6));
    CHECK(overlap(fwd(*o, 0), fwd(*o, 2)) == Approx(0).margin(1e-12));
  }
  // Processor sharing: both ranks compute all along, each op at half speed, 2t.
  for (const OpRecord& r : fwd(shared, 2)) CHECK(r.end - r.start == Approx(2 * test::kForwardOp).epsilon(1e-6));
  CHECK(overlap(fwd(shared, 0), fwd(shared, 2)) == Approx(4 * 4 * 2 * test::kForwardOp).epsilon(1e-6));
  // Ranks of different cores compute at once under both.
  CHECK(overlap(fwd(queue, 0), fwd(queue, 1)) > 0);
}

TEST_CASE("where a core's ranks run different work at once, queueing agrees with the analytical engine",
          "[simgrid][calibrated][shared-cores]") {
  // 3 ASP workers and their 3 servers (6 ranks) on a 2-core profile shaped like a measured one: a
  // worker's backward pass and a server's update meet on a core. Queued, SimGrid keeps the
  // analytical engine's order; processor sharing stretches both, and the workers' iterations with them.
  const std::string six =
      test::edited_profile("sg-cores6", {{"  ranks: 2", "  ranks: 6"}},
                           std::string(DTSIM_SOURCE_DIR) + "/tests/calibrate/data/profile_measured.yaml");
  const Scenario s = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/bench/validation/ps_2w_4MB_async.yaml",
                                   {"cluster.devices_per_node=3", "cluster.calibration=" + six});
  const Plan plan = compile_plan(s);
  REQUIRE(plan.ranks.size() == 6);
  const Outcome a = on_analytical(s, plan);
  const Outcome queue = simgrid(s, plan, sg::CoreSharing::Queue);
  const Outcome shared = simgrid(s, plan, sg::CoreSharing::Processor);
  CHECK(queue.iteration == Approx(a.iteration).epsilon(0.01));
  WARN("3 ASP workers + 3 servers on 2 cores, mean iteration: analytical "
       << a.iteration * 1e3 << " ms, SimGrid queued " << queue.iteration * 1e3 << " ms, SimGrid processor sharing "
       << shared.iteration * 1e3 << " ms");
}

TEST_CASE("SimGrid refuses a speed profile on a rank of a shared core", "[simgrid][calibrated][shared-cores]") {
  // A core's host runs every rank of the core: it cannot slow one of them down alone.
  const std::string four = test::edited_profile("sg-cores4-slow", "  ranks: 2", "  ranks: 4");
  const Scenario s = load_scenario(test::kCalibScenario, {"cluster.devices_per_node=4", "cluster.calibration=" + four,
                                                          "stragglers.speed_profile=" + std::string(DTSIM_SOURCE_DIR) +
                                                              "/scenarios/profiles/thermal_throttle.txt",
                                                          "stragglers.profile_workers=1"});
  const Plan plan = compile_plan(s);
  CHECK_THROWS_WITH(
      test::simulate(s.cluster, plan, s.run.fidelity),
      Catch::Contains("stragglers.speed_profile: rank 1 shares core 1") && Catch::Contains("use --engine analytical"));
}
