// trace.json's gaps on a rank's compute lane in the summary's categories: the events named "exposed communication"
// add up to the rank's exposed_comm_s in metrics.json, those named "waiting" to its wait_s (before this, every gap was
// "waiting", exposed communication included, while the summary counted the two apart).
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

using dtsim::test::run_dtsim;

namespace {

// Per rank, the trace's "exposed communication" and "waiting" seconds over the whole run.
struct Gaps {
  std::map<int, double> exposed, waiting;
};

Gaps gaps_of(const nlohmann::json& t) {
  Gaps g;
  for (const auto& e : t["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    const int rank = e["args"]["rank"].get<int>();
    if (e["name"] == "exposed communication") {
      CHECK(e["cat"] == "exposed");
      g.exposed[rank] += e["dur"].get<double>() * 1e-6;
    } else if (e["name"] == "waiting") {
      CHECK(e["cat"] == "wait");
      g.waiting[rank] += e["dur"].get<double>() * 1e-6;
    }
  }
  return g;
}

// Each worker's trace gaps per measured iteration (the run has no warm-up) against its metrics; the totals.
std::pair<double, double> check_job(const nlohmann::json& job, Gaps& g) {
  const double iterations = job["iterations"].get<double>();
  double exposed = 0, waiting = 0;
  for (const auto& rank : job["per_rank"]) {
    if (rank["role"] != "worker") continue;
    const int id = rank["rank"].get<int>();
    INFO(job["job"].get<std::string>() << " rank " << id);
    CHECK(g.exposed[id] / iterations == Approx(rank["exposed_comm_s"].get<double>()).epsilon(1e-6).margin(1e-9));
    CHECK(g.waiting[id] / iterations == Approx(rank["wait_s"].get<double>()).epsilon(1e-6).margin(1e-9));
    exposed += g.exposed[id];
    waiting += g.waiting[id];
  }
  return {exposed, waiting};
}

}  // namespace

TEST_CASE("the trace's exposed communication and waiting add up to the metrics' per rank") {
  for (const char* engine : {"simgrid", "analytical"}) {
    const std::string out = dtsim::test::temp_dir(std::string("trace-categories-") + engine);
    const auto r = run_dtsim(std::string("run scenarios/quickstart.yaml --engine ") + engine +
                                 " --set strategy.allreduce.overlap=false --set stragglers.slow_workers=2 "
                                 "--set stragglers.slow_factor=3 --set run.warmup=0 --out '" +
                                 out + "'",
                             std::string("trace-categories-") + engine);
    INFO(engine << r.err);
    REQUIRE(r.code == 0);
    const auto m = nlohmann::json::parse(dtsim::test::slurp(out + "/metrics.json"));
    Gaps g = gaps_of(nlohmann::json::parse(dtsim::test::slurp(out + "/trace.json")));
    const auto [exposed, waiting] = check_job(m, g);
    CHECK(exposed > 0);  // no overlap: every AllReduce is exposed
    CHECK(waiting > 0);  // the others wait for worker 2
    CHECK(g.waiting[2] < g.waiting[0]);
  }
}

TEST_CASE(
    "the trace's gaps add up to the metrics in the straggler comparison's synchronous jobs (BSP, backup workers)") {
  const std::string out = dtsim::test::temp_dir("trace-categories-backup");
  const auto r =
      run_dtsim("run scenarios/stragglers_backup_workers.yaml --engine simgrid --set run.warmup=0 --out '" + out + "'",
                "trace-categories-backup");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto m = nlohmann::json::parse(dtsim::test::slurp(out + "/metrics.json"));
  Gaps g = gaps_of(nlohmann::json::parse(dtsim::test::slurp(out + "/trace.json")));
  int checked = 0;
  for (const auto& job : m["jobs"]) {
    // BSP and backup workers; asynchronous workers (SSP, ASP, gossip) are measured over their own windows.
    if (!job["synchronous"].get<bool>()) continue;
    check_job(job, g);
    ++checked;
  }
  CHECK(checked == 2);
}
