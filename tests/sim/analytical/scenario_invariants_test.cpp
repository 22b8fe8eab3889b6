// Invariants of whole scenarios under the analytical engine: overlap never lengthens an
// iteration, more bandwidth is never slower, more shards never slow a parameter server.
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>

#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "sim/analytical/symmetric.hpp"
#include "tests/support/run_analytical.hpp"

using namespace dtsim;

namespace {

Metrics run(const std::string& file, std::vector<std::string> sets) {
  return test::run_analytical(load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/" + file, sets)).front();
}

double mean(const std::string& file, std::vector<std::string> sets) { return run(file, sets).iteration_time.mean; }

}  // namespace

TEST_CASE("overlap never lengthens an iteration") {
  for (const char* file : {"quickstart.yaml", "parameter_server.yaml", "gpt2_fat_tree.yaml", "synthetic_torus.yaml"}) {
    for (const char* bucket : {"1MB", "25MB", "200MB"}) {
      INFO(file << " bucket " << bucket);
      const std::string b = std::string("strategy.allreduce.bucket_size=") + bucket;
      const double on = mean(file, {b, "strategy.allreduce.overlap=true"});
      const double off = mean(file, {b, "strategy.allreduce.overlap=false"});
      CHECK(on <= off * (1 + 1e-12));
    }
  }
}

TEST_CASE("without overlap an iteration is compute plus communication") {
  const Metrics m = run("quickstart.yaml", {"strategy.allreduce.overlap=false"});
  CHECK(m.exposed_comm_fraction == Approx(m.comm_fraction).epsilon(1e-9));
  CHECK(m.wait_fraction == Approx(0).margin(1e-9));
}

TEST_CASE("more network bandwidth is never slower") {
  for (const char* file : {"quickstart.yaml", "parameter_server.yaml", "gpt2_fat_tree.yaml"}) {
    double last = 1e30;
    for (const char* rate : {"10Gbps", "25Gbps", "100Gbps", "400Gbps"}) {
      INFO(file << " at " << rate);
      const double t = mean(file, {std::string("cluster.nic.rate=") + rate});
      CHECK(t <= last);
      last = t;
    }
  }
}

TEST_CASE("more parameter-server shards never slow the servers' incast") {
  double last = 1e30;
  for (int shards : {1, 2, 4, 8}) {
    const double t = mean("parameter_server.yaml", {"strategy.parameter_server.shards=" + std::to_string(shards)});
    CHECK(t <= last * (1 + 1e-12));
    last = t;
  }
}

TEST_CASE("the plan conserves gradient bytes") {
  const Scenario s = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  const Plan plan = compile_plan(s);
  double allreduced = 0;
  for (const Op& op : plan.ranks[0].ops) {
    if (const auto* c = std::get_if<CollectiveOp>(&op.body)) allreduced += c->bytes;
  }
  CHECK(allreduced == Approx(s.job().workload.total_params() * 4.0));  // fp32 gradients, every parameter once

  const Scenario ps = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/parameter_server.yaml",
                                    {"strategy.parameter_server.shards=3", "strategy.parameter_server.split=by_layer"});
  const Plan pp = compile_plan(ps);
  double pushed = 0, received = 0;
  for (const auto& r : pp.ranks) {
    for (const Op& op : r.ops) {
      if (const auto* snd = std::get_if<SendOp>(&op.body); snd && r.role == Role::Worker) pushed += snd->bytes;
      if (const auto* rcv = std::get_if<RecvOp>(&op.body); rcv && r.role == Role::Server) received += rcv->bytes;
    }
  }
  CHECK(pushed == Approx(ps.job().workload.total_params() * 4.0 * ps.workers()));
  CHECK(received == Approx(pushed));
}

TEST_CASE("bytes on the wire equal the algorithm's count") {
  const Scenario s = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  const double grads = s.job().workload.total_params() * 4.0;
  const double n = s.workers();
  // Ring AllReduce: every rank sends 2(N-1)/N of the gradients.
  CHECK(run("quickstart.yaml", {}).bytes_on_wire_per_iteration == Approx(n * 2 * (n - 1) / n * grads));
  // Halving-doubling sends the same volume; a parameter server's workers push and its servers send back.
  CHECK(run("quickstart.yaml", {"strategy.allreduce.algorithm=halving_doubling"}).bytes_on_wire_per_iteration ==
        Approx(n * 2 * (n - 1) / n * grads));
  CHECK(run("quickstart.yaml", {"strategy.kind=parameter_server", "strategy.parameter_server.shards=2"})
            .bytes_on_wire_per_iteration == Approx(2 * n * grads));
}

TEST_CASE("the analytical engine sees a fat-tree's leaf uplinks as the SimGrid engine does") {
  // A node-ordered ring sends one node's traffic across each leaf uplink: 4 nodes per leaf at
  // oversubscription 2 still carry it; at 8 the uplink is half a node and the ring slows.
  auto with = [](const char* over) {
    return mean("gpt2_fat_tree.yaml", {"model.batch_per_worker=1", "strategy.allreduce.algorithm=ring",
                                       std::string("cluster.topology.oversubscription=") + over});
  };
  CHECK(with("2") == Approx(with("1")));
  CHECK(with("8") > with("1") * 1.1);
}

TEST_CASE("every published-results scenario loads and runs", "[published]") {
  // bench/published/: one scenario per published row (r<N>_...yaml; other files are model files they
  // use). Their single-GPU points run here; bench/published/run sweeps them against the sources.
  int runs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(DTSIM_SOURCE_DIR) + "/bench/published")) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".yaml" || name.size() < 2 || name[0] != 'r' || !std::isdigit(name[1])) continue;
    INFO(name);
    const Scenario s = load_scenario(entry.path().string(), {"cluster.nodes=1", "cluster.devices_per_node=1"});
    const Metrics m = test::run_analytical(s).front();
    CHECK(m.throughput_samples_per_s > 0);
    ++runs;
  }
  CHECK(runs >= 10);
}

TEST_CASE("every published LLM scenario runs, and faster links never make it slower", "[published]") {
  // bench/llm/scenarios/: one scenario per published LLM training row (bench/llm/run compares them with their
  // sources). Here the invariant: twice the NVLink and NIC rates cannot lengthen an iteration.
  int runs = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(DTSIM_SOURCE_DIR) + "/bench/llm/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().filename().string());
    const Scenario s = load_scenario(entry.path().string());
    Scenario faster = s;
    faster.cluster.intra.rate *= 2;
    faster.cluster.nic.rate *= 2;
    REQUIRE(analytical::is_symmetric(s));  // the fast path, as `dtsim run` takes it: one rank per stage
    const double base = analytical::run_analytical(s).front().iteration_time.mean;
    CHECK(base > 0);
    CHECK(analytical::run_analytical(faster).front().iteration_time.mean <= base * (1 + 1e-9));
    ++runs;
  }
  CHECK(runs >= 100);
}
