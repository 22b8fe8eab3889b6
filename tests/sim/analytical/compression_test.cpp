// Compression under the analytical engine: exact bytes on the wire, free compression never
// lengthens an iteration, and where top-k's AllGather stops paying as workers are added.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "sim/analytical/engine.hpp"

using namespace dtsim;

namespace {

// One 1e6-parameter layer (one bucket) on N nodes of one device: every collective is a ring.
std::string job(int nodes) {
  return "name: t\nmodel:\n  name: synthetic\n  synthetic: {params: 1e6, flops_per_sample: 1GFLOP, layers: 1}\n"
         "cluster:\n  nodes: " +
         std::to_string(nodes) + "\n  device: a100_40gb\nrun: {iterations: 2, warmup: 0}\n";
}

Metrics run(const Scenario& s) {
  const Plan plan = compile_plan(s);
  Recorder rec;
  analytical::AnalyticalExecutor engine(s.cluster);
  const RunInfo info = engine.run(plan, rec);
  return compute_metrics(plan, rec.records(), info);
}

Metrics run_text(int nodes, const std::vector<std::string>& sets) {
  return run(load_scenario_text(job(nodes), "x.yaml", sets));
}

Metrics run_file(const std::string& file, const std::vector<std::string>& sets) {
  return run(load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/" + file, sets));
}

}  // namespace

TEST_CASE("bytes on the wire per iteration equal the formulas") {
  const double n = 4;  // workers: a ring AllReduce sends 2 (N-1)/N S per rank, an AllGather (N-1)/N S
  CHECK(run_text(4, {}).bytes_on_wire_per_iteration == Approx(n * 2 * (n - 1) / n * 4e6));
  CHECK(run_text(4, {"compression.method=fp16"}).bytes_on_wire_per_iteration == Approx(n * 2 * (n - 1) / n * 2e6));
  CHECK(run_text(4, {"compression.method=int8"}).bytes_on_wire_per_iteration ==
        Approx(n * 2 * (n - 1) / n * (1e6 + 4)));
  CHECK(run_text(4, {"compression.method=topk"}).bytes_on_wire_per_iteration == Approx(n * (n - 1) * 8 * 10000));
  CHECK(run_text(4, {"compression.method=sign"}).bytes_on_wire_per_iteration == Approx(n * (n - 1) * (125000 + 4)));
  CHECK(run_text(4, {"compression.method=powersgd"}).bytes_on_wire_per_iteration ==
        Approx(n * 2 * (n - 1) / n * 4 * (1000 + 1000) * 4));
  // Parameter server: each worker pushes its payload, the server sends dense parameters back.
  CHECK(run_text(4, {"strategy.kind=parameter_server", "compression.method=qsgd", "compression.levels=1"})
            .bytes_on_wire_per_iteration == Approx(n * (250000 + 4) + n * 4e6));
}

TEST_CASE("free compression never lengthens an iteration") {
  // Dense and low-rank payloads are smaller than the gradient at any N; gathered ones only while
  // (N - 1) payloads stay under the dense AllReduce's 2 (N-1)/N b n (quickstart's 8 workers).
  const std::vector<const char*> fewer_bytes{"fp16", "bf16", "int8", "qsgd", "powersgd"};
  const std::vector<const char*> all{"fp16", "bf16", "int8", "qsgd", "topk", "randomk", "sign", "powersgd"};
  for (const char* file : {"quickstart.yaml", "gpt2_fat_tree.yaml", "parameter_server.yaml"}) {
    const double none = run_file(file, {}).iteration_time.mean;
    const bool ps = std::string(file) == "parameter_server.yaml";
    for (const char* method : std::string(file) == "quickstart.yaml" ? all : fewer_bytes) {
      if (ps && std::string(method) == "powersgd") continue;
      INFO(file << " " << method);
      const double t =
          run_file(file, {std::string("compression.method=") + method, "compression.cost_scale=0"}).iteration_time.mean;
      CHECK(t <= none * (1 + 1e-12));
    }
  }
}

TEST_CASE("top-k at ratio 1 moves at least the dense bytes") {
  for (int nodes : {2, 4, 16}) {
    INFO(nodes << " nodes");
    CHECK(run_text(nodes, {"compression.method=topk", "compression.ratio=1"}).bytes_on_wire_per_iteration >=
          run_text(nodes, {}).bytes_on_wire_per_iteration);
  }
}

TEST_CASE("with two workers top-k pays only below ratio one half") {
  const double dense = run_text(2, {}).bytes_on_wire_per_iteration;
  CHECK(run_text(2, {"compression.method=topk", "compression.ratio=0.4"}).bytes_on_wire_per_iteration < dense);
  CHECK(run_text(2, {"compression.method=topk", "compression.ratio=0.6"}).bytes_on_wire_per_iteration > dense);
}

TEST_CASE("top-k 1 percent stops paying as workers are added") {
  // ResNet-50 as in quickstart, one GPU per node at 10 Gbps, no overlap: the exchange is exposed.
  auto iteration = [](int nodes, const char* method) {
    return run_file("quickstart.yaml",
                    {"cluster.devices_per_node=1", "cluster.nodes=" + std::to_string(nodes), "cluster.nic.rate=10Gbps",
                     "strategy.allreduce.overlap=false", std::string("compression.method=") + method,
                     "compression.ratio=0.01", "run.iterations=1"})
        .iteration_time.mean;
  };
  int crossover = 0;
  for (int nodes : {2, 4, 8, 16, 32, 64, 128, 256}) {
    const bool pays = iteration(nodes, "topk") < iteration(nodes, "none");
    if (nodes <= 8) CHECK(pays);
    if (!pays && crossover == 0) crossover = nodes;
  }
  INFO("top-k 1% stops paying at " << crossover << " workers");
  CHECK(crossover > 8);
  CHECK(crossover <= 256);
  CHECK(iteration(256, "topk") > iteration(256, "none"));
}
