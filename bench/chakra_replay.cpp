// Importing and replaying Chakra traces on the analytical engine: RANKS files of NODES nodes each,
// generated first (not timed): compute nodes of 10 us in a chain, every 100th an AllReduce of 1 MB
// on all ranks, and in every hundred one message to the next rank of a ring. Prints one line:
//   ranks nodes_per_rank import_s engine_s total_s import_cpu_s engine_cpu_s peak_rss_mib
// import_s: reading the files and building the Plan (compile_plan); engine_s: the analytical run
// (wall clock); the _cpu_s columns: the process's CPU time in each (what a machine shared with other
// work does not inflate).
// Usage: bench_chakra_replay RANKS NODES [FOLDER]   (FOLDER: where the traces go, default /tmp)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "core/chakra/et_file.hpp"
#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "sim/analytical/engine.hpp"

namespace {

using namespace dtsim;

EtAttr attr(const char* name, std::int64_t v) { return EtAttr{name, v}; }

EtTrace rank_trace(int rank, int ranks, int nodes) {
  EtTrace t;
  t.version = "0.0.4";
  t.nodes.reserve(static_cast<size_t>(nodes));
  for (int i = 0; i < nodes; ++i) {
    EtNode n;
    n.id = static_cast<std::uint64_t>(i);
    n.name = fmt::format("op{}", i);
    if (i > 0) n.data_deps.push_back(static_cast<std::uint64_t>(i - 1));
    const int k = i % 100;
    if (k == 99) {
      n.type = static_cast<int>(EtNodeType::Collective);
      n.attrs = {attr("comm_type", 0), attr("comm_size", 1 << 20), EtAttr{"pg_name", std::string("world")}};
    } else if (k == 49 && ranks > 1) {  // the message to the next rank, beside the one from the previous
      n.type = static_cast<int>(EtNodeType::Send);
      n.attrs = {attr("comm_dst", (rank + 1) % ranks), attr("comm_size", 1 << 16), attr("comm_tag", i)};
    } else if (k == 50 && ranks > 1) {
      n.type = static_cast<int>(EtNodeType::Recv);
      n.data_deps = {static_cast<std::uint64_t>(i - 2)};
      n.attrs = {attr("comm_src", (rank + ranks - 1) % ranks), attr("comm_size", 1 << 16), attr("comm_tag", i - 1)};
    } else {
      n.type = static_cast<int>(EtNodeType::Compute);
      n.duration_micros = 10;
      n.attrs = {attr("num_ops", 1'000'000'000), attr("tensor_size", 1 << 20)};
      if (k == 51) n.data_deps.push_back(static_cast<std::uint64_t>(i - 2));  // after the send too
    }
    t.nodes.push_back(std::move(n));
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s RANKS NODES [FOLDER]\n", argv[0]);
    return 2;
  }
  const int ranks = std::atoi(argv[1]);
  const int nodes = std::atoi(argv[2]);
  const std::string folder =
      (std::filesystem::path(argc > 3 ? argv[3] : "/tmp") / fmt::format("dtsim_chakra_bench_{}x{}", ranks, nodes))
          .string();
  std::filesystem::create_directories(folder);
  for (int r = 0; r < ranks; ++r) write_et(fmt::format("{}/b.{}.et", folder, r), rank_trace(r, ranks, nodes));

  const auto cpu_now = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  };
  const double c0 = cpu_now();
  const auto t0 = std::chrono::steady_clock::now();
  const int per_node = ranks >= 8 ? 8 : ranks;
  const Scenario s = load_scenario_text(fmt::format(R"(name: chakra_bench
workload: {{chakra: {}/b, chakra_timing: duration}}
cluster: {{nodes: {}, devices_per_node: {}, device: a100_80gb}}
run: {{engine: analytical, iterations: 1, warmup: 0}}
)",
                                                    folder, (ranks + per_node - 1) / per_node, per_node),
                                        "bench.yaml");
  const Plan plan = compile_plan(s);
  const auto t1 = std::chrono::steady_clock::now();
  const double c1 = cpu_now();
  Recorder recorder;
  recorder.reserve(static_cast<size_t>(plan.total_ops()));
  analytical::AnalyticalExecutor engine(s.cluster);
  engine.run(plan, recorder);
  const auto t2 = std::chrono::steady_clock::now();
  const double c2 = cpu_now();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  std::printf("%d %d %.3f %.3f %.3f %.3f %.3f %.1f\n", ranks, nodes, seconds(t0, t1), seconds(t1, t2), seconds(t0, t2),
              c1 - c0, c2 - c1, static_cast<double>(usage.ru_maxrss) / 1024.0);
  std::filesystem::remove_all(folder);
  return 0;
}
