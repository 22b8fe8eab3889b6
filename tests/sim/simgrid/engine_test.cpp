// The SimGrid engine on whole scenarios: fusion changes nothing, contention shows where it
// should, and the invariants hold (more bandwidth never slower, streams never overlap).
#include <catch2/catch.hpp>

#include <map>

#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/run_analytical.hpp"
#include "tests/support/simulate.hpp"

using namespace dtsim;

namespace {

Scenario scenario(const std::string& file, const std::vector<std::string>& sets) {
  return load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/" + file, sets);
}

std::vector<Metrics> metrics_of(const Scenario& s, Fidelity fidelity = Fidelity::Flow) {
  const Plan plan = compile_plan(s);
  const auto result = test::simulate(s.cluster, plan, fidelity);
  return compute_job_metrics(plan, result.records, RunInfo{"simgrid", "flow", 0});
}

double iteration(const std::string& file, const std::vector<std::string>& sets) {
  return metrics_of(scenario(file, sets)).front().iteration_time.mean;
}

// A job whose iteration is almost all gradient exchange: 400 MB of fp32 gradients, little compute.
const char* const kCommBound = R"(name: comm
model:
  name: synthetic
  synthetic: {params: 1e8, flops_per_sample: 1MFLOP, layers: 4}
  batch_per_worker: 1
cluster:
  nodes: 4
  devices_per_node: 2
  device: a100_80gb
  nic: {rate: 100Gbps, latency: 5us}
strategy:
  allreduce: {algorithm: ring, bucket_size: 100MB}
run: {iterations: 2, warmup: 0}
)";

}  // namespace

TEST_CASE("fused compute gives the same records as op-by-op compute") {
  // Without contention and with it: a fused run slows as its host's pstate changes, and each op's end
  // within it is found from the speeds the run had (sim/simgrid/contention.hpp).
  for (const char* contention : {"1", "0"}) {
    INFO("cluster.contention.compute=" << contention);
    const Scenario s =
        scenario("quickstart.yaml", {"run.iterations=2", std::string("cluster.contention.compute=") + contention});
    const Plan plan = compile_plan(s);
    const auto fused = test::simulate(s.cluster, plan, Fidelity::Flow, true);
    const auto plain = test::simulate(s.cluster, plan, Fidelity::Flow, false);
    REQUIRE(fused.records.size() == plain.records.size());
    std::map<std::tuple<int, int, int>, std::pair<double, double>> times;
    for (const auto& r : plain.records) times[{r.rank, r.iteration, r.op}] = {r.start, r.end};
    for (const auto& r : fused.records) {
      const auto& [start, end] = times.at({r.rank, r.iteration, r.op});
      CHECK(r.start == Approx(start).epsilon(1e-9).margin(1e-15));
      CHECK(r.end == Approx(end).epsilon(1e-9).margin(1e-15));
    }
    CHECK(fused.activities * 5 < plain.activities);
  }
}

TEST_CASE("two jobs crossing the same NICs each take about twice as long") {
  const Scenario alone =
      load_scenario_text(std::string(kCommBound) + "", "alone.yaml", {"placement.devices_per_node=1"});
  const double t_alone = metrics_of(alone).front().iteration_time.mean;
  std::string two = kCommBound;
  two.replace(two.find("model:"), std::string::npos, "");
  two += R"(jobs:
  - model: {name: synthetic, synthetic: {params: 1e8, flops_per_sample: 1MFLOP, layers: 4}, batch_per_worker: 1}
    strategy: {allreduce: {algorithm: ring, bucket_size: 100MB}}
    placement: {first_local: 0, devices_per_node: 1}
  - model: {name: synthetic, synthetic: {params: 1e8, flops_per_sample: 1MFLOP, layers: 4}, batch_per_worker: 1}
    strategy: {allreduce: {algorithm: ring, bucket_size: 100MB}}
    placement: {first_local: 1, devices_per_node: 1}
cluster:
  nodes: 4
  devices_per_node: 2
  device: a100_80gb
  nic: {rate: 100Gbps, latency: 5us}
run: {iterations: 2, warmup: 0}
)";
  const auto both = metrics_of(load_scenario_text(two, "two.yaml"));
  REQUIRE(both.size() == 2);
  for (const auto& m : both) CHECK(m.iteration_time.mean / t_alone == Approx(2.0).epsilon(0.05));
}

TEST_CASE("a parameter server's incast falls with shards") {
  // 8 workers pushing VGG-16's 553 MB of gradients: with k shards each server port carries 1/k.
  const double one = iteration("parameter_server.yaml", {"strategy.parameter_server.shards=1",
                                                         "cluster.servers.nic_rate=25Gbps", "run.iterations=1"});
  const double four = iteration("parameter_server.yaml", {"strategy.parameter_server.shards=4",
                                                          "cluster.servers.nic_rate=25Gbps", "run.iterations=1"});
  // Compute is shared by both; the incast part (8 * 553 MB / 3.125 GB/s = 1.42 s per direction) dominates.
  CHECK(one / four > 3.0);
  CHECK(one / four < 4.0);
}

TEST_CASE("an oversubscribed fat-tree slows a ring") {
  // A ring over node-ordered ranks crosses each leaf's uplink with one node's traffic: uplinks of
  // 4 nodes / 8 = half a node slow it; a non-blocking tree (1) does not.
  auto with = [&](const char* over) {
    return iteration("gpt2_fat_tree.yaml",
                     {"run.iterations=1", "model.batch_per_worker=1", "cluster.topology.nodes_per_switch=4",
                      "strategy.allreduce.algorithm=ring", std::string("cluster.topology.oversubscription=") + over});
  };
  const double blocking = with("8");
  const double free = with("1");
  CHECK(blocking > free * 1.05);
  CHECK(with("2") == Approx(free).epsilon(1e-6));  // 2 nodes' worth of uplink: still enough for one ring crossing
}

TEST_CASE("hierarchical AllReduce beats a flat ring when NICs are slow next to NVLink") {
  const std::vector<std::string> slow{"run.iterations=1", "cluster.nic.count=1", "cluster.nic.rate=25Gbps"};
  auto with = [&](const char* algo) {
    auto sets = slow;
    sets.push_back(std::string("strategy.allreduce.algorithm=") + algo);
    return iteration("gpt2_fat_tree.yaml", sets);
  };
  CHECK(with("hierarchical") < with("ring"));
}

TEST_CASE("more bandwidth is never slower on SimGrid") {
  double last = 1e30;
  for (const char* rate : {"10Gbps", "25Gbps", "100Gbps", "400Gbps"}) {
    const double t = iteration("quickstart.yaml", {std::string("cluster.nic.rate=") + rate, "run.iterations=1"});
    CHECK(t <= last * (1 + 1e-9));
    last = t;
  }
}

TEST_CASE("each rank's streams run one op at a time and cover the iteration") {
  const Scenario s = scenario("ps_vs_allreduce.yaml", {"run.iterations=2"});
  const Plan plan = compile_plan(s);
  const auto result = test::simulate(s.cluster, plan, Fidelity::Flow);
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> lanes;
  std::map<std::pair<int, int>, int> ops_seen;
  for (const auto& r : result.records) {
    const Op& op = plan.ranks[r.rank].ops[r.op];
    CHECK(r.end >= r.start);
    ++ops_seen[{r.rank, r.iteration}];
    if (op.stream != Stream::Posted) lanes[{r.rank, static_cast<int>(op.stream)}].push_back({r.start, r.end});
  }
  for (auto& [lane, intervals] : lanes) {
    std::sort(intervals.begin(), intervals.end());
    for (size_t i = 1; i < intervals.size(); ++i) CHECK(intervals[i].first >= intervals[i - 1].second - 1e-12);
  }
  // Every op of every rank ran in every iteration (warm-up included).
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    for (int it = 0; it < plan.warmup + plan.iterations; ++it) {
      CHECK(ops_seen[{static_cast<int>(r), it}] == static_cast<int>(plan.ranks[r].ops.size()));
    }
  }
}

TEST_CASE("a straggler paces a BSP ring on SimGrid as the closed forms say") {
  // Flow fidelity: a collective's members start and end together, so a slow worker delays
  // everyone by its extra compute and nothing else.
  for (const char* factor : {"1", "3"}) {
    const std::vector<std::string> sets{"stragglers.slow_workers=2", std::string("stragglers.slow_factor=") + factor,
                                        "run.iterations=2"};
    const Scenario s = scenario("quickstart.yaml", sets);
    const double expected = test::run_analytical(s).front().iteration_time.mean;
    INFO("factor " << factor);
    CHECK(metrics_of(s).front().iteration_time.mean == Approx(expected).epsilon(0.01));
  }
}

TEST_CASE("parameter-server sync policies on SimGrid agree with the analytical engine") {
  // One straggler among 8 VGG-16 workers; BSP, SSP(2) and ASP.
  for (const char* policy : {"bsp", "ssp", "asp"}) {
    const std::vector<std::string> sets{
        "stragglers.slow_workers=1", "stragglers.slow_factor=3", std::string("sync.policy=") + policy,
        "sync.staleness=2",          "run.iterations=4",         "cluster.transport=rdma"};
    const Scenario s = scenario("parameter_server.yaml", sets);
    const Metrics expected = test::run_analytical(s).front();
    const Metrics got = metrics_of(s).front();
    INFO(policy);
    CHECK(got.throughput_samples_per_s == Approx(expected.throughput_samples_per_s).epsilon(0.05));
    CHECK(got.staleness.mean == Approx(expected.staleness.mean).margin(0.5));
  }
}

TEST_CASE("local SGD on SimGrid agrees with the analytical engine") {
  const Scenario s = scenario("quickstart.yaml", {"sync.policy=local_sgd", "sync.period=4", "run.iterations=8"});
  const double expected = test::run_analytical(s).front().iteration_time.mean;
  CHECK(metrics_of(s).front().iteration_time.mean == Approx(expected).epsilon(0.01));
}
