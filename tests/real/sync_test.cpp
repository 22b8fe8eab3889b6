// dtsim-real beyond BSP: asynchronous and stale-synchronous parameter servers (every push applied
// exactly once, staleness measured), stragglers injected for real (BSP slows by the closed form,
// ASP does not), local SGD's periodic exchange, and a scenario shrunk to the MPI world.
#include <catch2/catch.hpp>

#include <set>

#include "tests/support/mpirun.hpp"

using dtsim::test::run_dtsim;
using dtsim::test::run_real;

namespace {

const std::string kTiny = "tests/real/data/tiny_allreduce.yaml";
const std::string kAsync = "tests/real/data/tiny_async.yaml";  // 1 shard, worker 1 three times slower

// A worker's own time per iteration: what it computed, exposed and waited.
double own_iteration(const nlohmann::json& metrics, int rank) {
  for (const auto& r : metrics["per_rank"]) {
    if (r["rank"] == rank)
      return r["compute_s"].get<double>() + r["exposed_comm_s"].get<double>() + r["wait_s"].get<double>();
  }
  FAIL("no rank " << rank);
  return 0;
}

// The check that every push reached the shard exactly once.
void require_async_exact(const dtsim::test::RealRun& r, int updates) {
  INFO(r.process.out << r.process.err);
  REQUIRE(r.process.code == 0);
  CHECK(r.metrics["checks"]["exact"] == true);
  const auto& shard = r.metrics["checks"]["collectives"][0];
  CHECK(shard["kind"] == "async updates");
  CHECK(shard["op"] == "shard 0 after " + std::to_string(updates) + " updates");
  CHECK(shard["mismatched_elements"] == 0);
  CHECK(shard["checked_elements"] == 200000);
  CHECK(r.metrics["checks"]["models"][0]["agreement_required"] == false);
}

}  // namespace

TEST_CASE("an ASP parameter server applies every push at once and measures staleness") {
  const auto r = run_real(4, kAsync + " --compute-scale 1 --set stragglers.slow_factor=1", "asp");
  require_async_exact(r, 2 * 7);
  CHECK(r.metrics["servers"] == 2);  // one server rank per worker of the shard
  CHECK(r.metrics["synchronous"] == false);
  const auto& measured = r.metrics["real"]["staleness"][0];
  CHECK(measured["updates"] == 2 * 6);  // the measured iterations of both workers
  long counted = 0;
  for (const auto& h : measured["histogram"]) counted += h.get<long>();
  CHECK(counted == 12);
  // Another worker's update falls between two of one's own at most (iterations) times in all.
  CHECK(measured["mean"].get<double>() >= 0);
  CHECK(measured["max"].get<double>() <= 7);
  // The simulator's staleness, computed from the measured op times, is there too, and the
  // metrics and trace have the simulator's fields.
  CHECK(r.metrics["staleness"].contains("histogram"));
  const std::string sim_out = dtsim::test::temp_dir("asp-sim");
  REQUIRE(run_dtsim("run " + kAsync + " --set stragglers.slow_factor=1 --out '" + sim_out + "'", "asp-sim").code == 0);
  const auto sim = nlohmann::json::parse(dtsim::test::slurp(sim_out + "/metrics.json"));
  for (auto it = sim.begin(); it != sim.end(); ++it) CHECK(r.metrics.contains(it.key()));
  for (const char* key : {"staleness", "per_rank"}) {
    const auto& a = key == std::string("per_rank") ? r.metrics[key][0] : r.metrics[key];
    const auto& b = key == std::string("per_rank") ? sim[key][0] : sim[key];
    for (auto it = b.begin(); it != b.end(); ++it) CHECK(a.contains(it.key()));
  }
  const auto trace = nlohmann::json::parse(dtsim::test::slurp(r.out + "/trace.json"));
  const auto sim_trace = nlohmann::json::parse(dtsim::test::slurp(sim_out + "/trace.json"));
  std::multiset<std::string> real_ops, sim_ops;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] != "wait" && e["cat"] != "exposed") real_ops.insert(e["name"].get<std::string>());
  }
  for (const auto& e : sim_trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] != "wait" && e["cat"] != "exposed") sim_ops.insert(e["name"].get<std::string>());
  }
  CHECK(real_ops == sim_ops);
}

TEST_CASE("a 3x straggler holds BSP and SSP(0) workers back but not ASP ones") {
  const std::string args = kAsync + " --compute-scale 1";
  const auto asp = run_real(4, args, "straggler-asp");
  require_async_exact(asp, 14);
  const auto ssp = run_real(4, args + " --set sync.policy=ssp --set sync.staleness=0", "straggler-ssp");
  require_async_exact(ssp, 14);
  const auto bsp = run_real(3, args + " --set sync.policy=bsp", "straggler-bsp");
  INFO(bsp.process.out << bsp.process.err);
  REQUIRE(bsp.process.code == 0);
  // Worker 0 is fast, worker 1 three times slower: under ASP each keeps its own pace (ideally 1/3).
  const double asp_ratio = own_iteration(asp.metrics, 0) / own_iteration(asp.metrics, 1);
  const double ssp_ratio = own_iteration(ssp.metrics, 0) / own_iteration(ssp.metrics, 1);
  const double bsp_ratio = own_iteration(bsp.metrics, 0) / own_iteration(bsp.metrics, 1);
  INFO("asp " << asp_ratio << " ssp " << ssp_ratio << " bsp " << bsp_ratio);
  // Gated workers keep step with the slowest one; ASP's fast worker runs ahead. The bounds are
  // loose (ideal: 1/3 against 1) because 4 ranks time-slice 2 cores.
  CHECK(asp_ratio < 0.9);
  CHECK(ssp_ratio > 0.75);
  CHECK(bsp_ratio > 0.75);
  CHECK(asp_ratio < ssp_ratio - 0.1);
  CHECK(asp_ratio < bsp_ratio - 0.1);
  // The gate made SSP(0) workers wait (its time is in waiting, not in communication).
  CHECK(ssp.metrics["per_rank"][0]["wait_s"].get<double>() > 0);
}

TEST_CASE("a 3x slow rank lengthens BSP AllReduce iterations by about the closed form") {
  const std::string args =
      kTiny + " --compute-scale 1 --set model.synthetic.flops_per_sample=25MFLOP --set run.iterations=5";
  const auto base = run_real(2, args, "straggler-base");
  const auto slow = run_real(2, args + " --set stragglers.slow_workers=1 --set stragglers.slow_factor=3", "straggler");
  INFO(base.process.out << slow.process.out << slow.process.err);
  REQUIRE(base.process.code == 0);
  REQUIRE(slow.process.code == 0);
  CHECK(slow.metrics["checks"]["exact"] == true);
  // The injected slowdown shows in the measured compute: rank 1 computes about 3x rank 0. The
  // lower bound leaves room for the VM's cores, whose speed swings 1.65x from one second to the
  // next (a GEMM loop pinned to one core: 100 to 165 GFLOP/s, docs/VALIDATION.md): 3 / 1.65 = 1.8,
  // and a ratio of 1.89 was seen; no slowdown at all would give 1. The upper bound is the same
  // swing the other way, 3 x 1.65 = 4.95 (CI saw 4.62); a slowdown applied twice would give 9.
  const auto& ranks = slow.metrics["per_rank"];
  const double c0 = ranks[0]["compute_s"].get<double>(), c1 = ranks[1]["compute_s"].get<double>();
  CHECK(c1 / c0 > 1.6);
  CHECK(c1 / c0 < 5.5);
  // BSP: the slow rank sets the pace, the fast one waits for it.
  const double measured = slow.metrics["iteration_time_s"]["mean"].get<double>();
  CHECK(measured > 0.9 * c1);
  CHECK(ranks[0]["wait_s"].get<double>() + ranks[0]["exposed_comm_s"].get<double>() > 0.5 * (c1 - c0));
  // Closed form: rank 1 computes c per iteration unslowed; at 3x the iteration grows by 2c. The two
  // runs happen seconds apart, and this VM's cores change speed by up to 1.7x between them (a base
  // run at 12.7 ms per iteration, the slowed one at 22.2 ms, in CI): the base run is rescaled by the
  // unslowed rank 0's compute in the slow run over its compute in the base run, and c is rank 0's
  // compute in the slow run. The band is wide: 2 shared cores time-slice the ranks.
  const double drift = c0 / base.metrics["per_rank"][0]["compute_s"].get<double>();
  const double c = c0;
  const double expected = drift * base.metrics["iteration_time_s"]["mean"].get<double>() + 2 * c;
  INFO("c " << c << " drift " << drift << " expected " << expected << " measured " << measured);
  CHECK(measured > 0.65 * expected);
  CHECK(measured < 2.2 * expected);
  // The extra work is twice rank 1's planned compute, in all iterations (warm-up included).
  const double planned = slow.metrics["real"]["flops_planned"].get<double>();
  CHECK(slow.metrics["real"]["flops_straggler"].get<double>() == Approx(planned).epsilon(0.02));
  CHECK(base.metrics["real"]["flops_straggler"] == 0.0);
}

TEST_CASE("local SGD exchanges every period iterations only") {
  const auto r =
      run_real(2, kTiny + " --set sync.policy=local_sgd --set sync.period=2 --set run.iterations=4", "local-sgd");
  INFO(r.process.out << r.process.err);
  REQUIRE(r.process.code == 0);
  CHECK(r.metrics["checks"]["exact"] == true);
  // 5 iterations (1 warm-up): the exchange runs in iterations 1 and 3 only.
  for (const auto& c : r.metrics["checks"]["collectives"]) CHECK(c["iterations"] == 2);
  const auto trace = nlohmann::json::parse(dtsim::test::slurp(r.out + "/trace.json"));
  int allreduces = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["name"].get<std::string>().rfind("allreduce", 0) == 0) ++allreduces;
  }
  CHECK(allreduces == 2 * 2 * static_cast<int>(r.metrics["checks"]["collectives"].size()));
}

TEST_CASE("a scenario bigger than the MPI world runs shrunk, says so once, and the sim command matches") {
  const auto r = run_real(2, kTiny + " --set cluster.nodes=4", "shrink");
  INFO(r.process.out << r.process.err);
  REQUIRE(r.process.code == 0);
  const std::string note =
      "needs 4 ranks but mpirun started 2; running it shrunk to 2 ranks with --set cluster.nodes=2";
  CHECK(r.process.out.find(note) != std::string::npos);
  CHECK(r.process.out.find(note, r.process.out.find(note) + 1) == std::string::npos);
  CHECK(r.metrics["real"]["scenario_overrides"] == nlohmann::json::array({"cluster.nodes=2"}));
  CHECK(r.metrics["workers"] == 2);
  // The printed dtsim command simulates the same shrunk scenario.
  const std::string cmd = r.metrics["real"]["simulate_with"].get<std::string>();
  CHECK(cmd.find("--set cluster.nodes=4 --set cluster.nodes=2") != std::string::npos);
  const std::string args = cmd.substr(cmd.find(" run ") + 1);
  const auto sim = run_dtsim(args.substr(0, args.find(" --out ")) + " --out '" + r.out + "-sim'", "shrink-sim");
  REQUIRE(sim.code == 0);
  const auto sim_metrics = nlohmann::json::parse(dtsim::test::slurp(r.out + "-sim/metrics.json"));
  CHECK(sim_metrics["workers"] == r.metrics["workers"]);
  // --no-shrink refuses as before.
  const auto refused = run_real(2, kTiny + " --set cluster.nodes=4 --no-shrink", "no-shrink");
  CHECK(refused.process.code == 2);
  CHECK(refused.process.err.find("use mpirun -np 4, or shrink the scenario to 2 ranks with --set cluster.nodes=2") !=
        std::string::npos);
}

TEST_CASE("the quick start runs at -np 4 shrunk to one node of four") {
  const auto r = run_real(4, "scenarios/quickstart.yaml --set run.iterations=1 --set run.warmup=0 --comm-scale 0.01",
                          "quickstart");
  INFO(r.process.out << r.process.err);
  REQUIRE(r.process.code == 0);
  CHECK(r.process.out.find("running it shrunk to 4 ranks with --set cluster.nodes=1") != std::string::npos);
  CHECK(r.metrics["checks"]["exact"] == true);
  CHECK(r.metrics["real"]["scenario_overrides"] == nlohmann::json::array({"cluster.nodes=1"}));
}

TEST_CASE("an SSP gate lets no worker pull more than the bound ahead of the slowest, by the measured clocks") {
  const int bound = 1;
  const auto r = run_real(4, kAsync + " --compute-scale 1 --set sync.policy=ssp --set sync.staleness=1", "ssp-bound");
  require_async_exact(r, 14);
  const auto trace = nlohmann::json::parse(dtsim::test::slurp(r.out + "/trace.json"));
  struct Gate {
    int rank, iteration;
    double start, end;  // us; a worker publishes its iteration before its gate's start is taken
  };
  std::vector<Gate> gates;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e["args"]["kind"] != "gate") continue;
    const double ts = e["ts"].get<double>();
    gates.push_back({e["args"]["rank"].get<int>(), e["args"]["iteration"].get<int>(), ts, ts + e["dur"].get<double>()});
  }
  CHECK(gates.size() == 2 * 7);
  // When worker w's gate of iteration k opened, every other worker had reached its gate of an
  // iteration >= k - bound (5 ms of slack for a thread preempted between publishing and reading
  // the clock; a 3x slower iteration here is over 20 ms).
  for (const Gate& g : gates) {
    for (const Gate& other : gates) {
      if (other.rank == g.rank || other.iteration != g.iteration - bound) continue;
      INFO("rank " << g.rank << " iteration " << g.iteration << " passed at " << g.end << " us; rank " << other.rank
                   << " reached iteration " << other.iteration << " at " << other.start << " us");
      CHECK(other.start <= g.end + 5000);
    }
  }
}
