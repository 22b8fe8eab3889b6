// Parameter-server synchronisation: BSP, SSP with a staleness bound, and ASP, on the analytical
// engine (the SimGrid engine is held to the same numbers in tests/simgrid).
#include <catch2/catch.hpp>

#include "core/base/error.hpp"
#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/run_analytical.hpp"

using namespace dtsim;

namespace {

// Compute-bound: 4 MB of gradients, 2 GFLOP per sample, fast servers on a fast network.
const char* const kComputeBound = R"(name: sync
model:
  name: synthetic
  synthetic: {params: 1e6, flops_per_sample: 2GFLOP, layers: 4}
  batch_per_worker: 32
cluster:
  nodes: 4
  devices_per_node: 1
  device: v100
  nic: {rate: 100Gbps, latency: 5us}
  servers: {nic_rate: 100Gbps}
strategy:
  kind: parameter_server
run: {iterations: 24, warmup: 2}
)";

Metrics run(const std::string& text, std::vector<std::string> sets) {
  return test::run_analytical(load_scenario_text(text, "sync.yaml", sets)).front();
}

Metrics file(const std::string& path, std::vector<std::string> sets) {
  return test::run_analytical(load_scenario(path, sets)).front();
}

}  // namespace

TEST_CASE("under ASP with N equal workers the mean staleness is N-1") {
  for (int nodes : {2, 4, 8}) {
    const Metrics m = file(std::string(DTSIM_SOURCE_DIR) + "/scenarios/parameter_server.yaml",
                           {"sync.policy=asp", "cluster.nodes=" + std::to_string(nodes), "run.iterations=6"});
    INFO(nodes << " workers");
    CHECK(m.staleness.mean == Approx(nodes - 1));
  }
  const Metrics bsp = file(std::string(DTSIM_SOURCE_DIR) + "/scenarios/parameter_server.yaml", {});
  CHECK(bsp.staleness.max == 0);
}

TEST_CASE("SSP with staleness 0 paces workers as BSP does") {
  // Same barrier; the servers differ only in applying each push (SSP) or one aggregate (BSP).
  const Metrics bsp = run(kComputeBound, {"stragglers.slow_workers=1", "stragglers.slow_factor=3"});
  const Metrics ssp = run(
      kComputeBound, {"stragglers.slow_workers=1", "stragglers.slow_factor=3", "sync.policy=ssp", "sync.staleness=0"});
  CHECK(ssp.throughput_samples_per_s == Approx(bsp.throughput_samples_per_s).epsilon(0.03));
  CHECK(ssp.staleness.max <= 3);  // at most the other workers' updates of the same iteration
}

TEST_CASE("a larger staleness bound lets fast workers run ahead of a straggler") {
  const std::vector<std::string> slow{"stragglers.slow_workers=1", "stragglers.slow_factor=4"};
  auto with = [&](std::vector<std::string> extra) {
    auto sets = slow;
    sets.insert(sets.end(), extra.begin(), extra.end());
    return run(kComputeBound, sets);
  };
  const Metrics bsp = with({});
  const Metrics ssp1 = with({"sync.policy=ssp", "sync.staleness=1"});
  const Metrics ssp4 = with({"sync.policy=ssp", "sync.staleness=4"});
  const Metrics asp = with({"sync.policy=asp"});
  CHECK(bsp.throughput_samples_per_s < ssp1.throughput_samples_per_s);
  CHECK(ssp1.throughput_samples_per_s <= ssp4.throughput_samples_per_s * (1 + 1e-9));
  CHECK(ssp4.throughput_samples_per_s <= asp.throughput_samples_per_s * (1 + 1e-9));
  // In steady state SSP runs fast workers s iterations ahead at the straggler's pace, so each of
  // the straggler's updates waits for one update of each other worker; ASP lets the fast ones
  // update 4 times per straggler iteration: its straggler's updates are 3 x 4 = 12 stale.
  CHECK(ssp1.staleness.max <= ssp4.staleness.max);
  CHECK(ssp4.staleness.max == 3);
  CHECK(asp.staleness.max >= 12);
}

TEST_CASE("ASP throughput approaches the sum of the workers' rates") {
  // One of 4 workers 4x slower: BSP runs everyone at the straggler's pace (4 x 1/4 of a fast
  // worker's rate), ASP at 3 fast rates plus a quarter.
  const Metrics alone = run(kComputeBound, {"cluster.nodes=1"});
  const double fast = alone.throughput_samples_per_s;
  const std::vector<std::string> slow{"stragglers.slow_workers=1", "stragglers.slow_factor=4"};
  auto sets = slow;
  sets.push_back("sync.policy=asp");
  const Metrics asp = run(kComputeBound, sets);
  const Metrics bsp = run(kComputeBound, slow);
  CHECK(asp.throughput_samples_per_s == Approx(3.25 * fast).epsilon(0.05));
  CHECK(bsp.throughput_samples_per_s == Approx(1.0 * fast).epsilon(0.05));
}

TEST_CASE("asynchronous policies need a parameter server") {
  try {
    file(std::string(DTSIM_SOURCE_DIR) + "/scenarios/parameter_server.yaml",
         {"strategy.kind=allreduce", "sync.policy=asp"});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "--set sync.policy=asp: error: sync.policy: 'asp' needs a parameter server (set "
          "strategy.kind: parameter_server); an AllReduce job is bsp");
  }
}

TEST_CASE("local SGD averages every H iterations: communication divided by H") {
  const std::string quickstart = std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  const std::vector<std::string> base{"strategy.allreduce.overlap=false", "run.iterations=12", "run.warmup=0"};
  const Metrics bsp = file(quickstart, base);
  const double compute = bsp.ranks[0].compute_s;
  const double comm = bsp.ranks[0].exposed_comm_s;
  for (int h : {1, 2, 4}) {
    auto sets = base;
    sets.push_back("sync.policy=local_sgd");
    sets.push_back("sync.period=" + std::to_string(h));
    const Metrics m = file(quickstart, sets);
    INFO("H = " << h);
    CHECK(m.iteration_time.mean == Approx(compute + comm / h).epsilon(1e-9));
    CHECK(m.bytes_on_wire_per_iteration == Approx(bsp.bytes_on_wire_per_iteration / h));
  }
}
