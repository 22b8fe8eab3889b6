// End to end: the stragglers_backup_workers scenario's five jobs, their waiting by cause in
// metrics.json (documented in docs/outputs.md) and in the summary table; the summary's stragglers row.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

using dtsim::test::run_dtsim;

TEST_CASE("the straggler comparison reports waiting by cause per job and per rank") {
  const std::string out = dtsim::test::temp_dir("stragglers");
  const auto r = run_dtsim("run scenarios/stragglers_backup_workers.yaml --out '" + out + "'", "stragglers");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("barrier      bound     server") != std::string::npos);
  CHECK(r.out.find("allreduce nccl, 1 backup") != std::string::npos);
  CHECK(r.out.find("allreduce nccl, gossip") != std::string::npos);
  const auto m = nlohmann::json::parse(dtsim::test::slurp(out + "/metrics.json"));
  REQUIRE(m["jobs"].size() == 5);
  for (const auto& job : m["jobs"]) {
    INFO(job["job"]);
    for (const char* k : {"barrier", "staleness_bound", "server_busy", "idle", "failure"}) {
      CHECK(job["wait_by_cause_s"][k].get<double>() >= 0);
    }
    for (const auto& rank : job["per_rank"]) {
      double sum = 0;
      for (const auto& [cause, s] : rank["wait_by_cause_s"].items()) sum += s.get<double>();
      CHECK(sum == Approx(rank["wait_s"].get<double>()).margin(1e-12));
    }
  }
  // bsp waits at its barrier, ssp3 at its bound; backup keeps 8 of its 9 workers' samples.
  CHECK(m["jobs"][0]["wait_by_cause_s"]["barrier"].get<double>() > 0.01);
  CHECK(m["jobs"][2]["wait_by_cause_s"]["staleness_bound"].get<double>() > 0.001);
  const auto& backup = m["jobs"][1];
  CHECK(backup["workers"] == 9);
  CHECK(backup["throughput_samples_per_s"].get<double>() ==
        Approx(8 * 64 / backup["iteration_time_s"]["mean"].get<double>()));
  CHECK(m["jobs"][4]["synchronous"] == false);
}

TEST_CASE("the summary names the slow workers by their indices (slow_workers=2 is worker 2, not two workers)") {
  const auto one = run_dtsim("run scenarios/quickstart.yaml --engine analytical --no-trace --out '" +
                                 dtsim::test::temp_dir("slow-one") +
                                 "' --set stragglers.slow_workers=2 --set stragglers.slow_factor=3",
                             "slow-one");
  REQUIRE(one.code == 0);
  CHECK(one.out.find("stragglers                 worker 2 computes 3x slower\n") != std::string::npos);
  const auto two = run_dtsim("run scenarios/quickstart.yaml --engine analytical --no-trace --out '" +
                                 dtsim::test::temp_dir("slow-two") +
                                 "' --set stragglers.slow_workers=0,5 --set stragglers.slow_factor=1.5 "
                                 "--set stragglers.jitter=hiccup",
                             "slow-two");
  REQUIRE(two.code == 0);
  CHECK(two.out.find("stragglers                 workers 0, 5 compute 1.5x slower; hiccups (3x, probability 0.01 an "
                     "iteration) on every worker\n") != std::string::npos);
  const auto none = run_dtsim(
      "run scenarios/quickstart.yaml --engine analytical --no-trace --out '" + dtsim::test::temp_dir("slow-none") + "'",
      "slow-none");
  CHECK(none.out.find("stragglers") == std::string::npos);
}
