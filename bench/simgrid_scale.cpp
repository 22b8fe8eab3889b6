// Speed and scale of the SimGrid engine: ResNet-50 data parallel with ring AllReduce on N ranks
// (nodes of 8 A100s), one simulation per process. Prints one line of measurements:
//   ranks iterations fidelity fused total_s platform_s engine_s peak_rss_mib activities activities_per_s
// total_s: load + compile + platform + simulation; platform_s: building the SimGrid platform;
// engine_s: the simulation alone.
// Usage: bench_simgrid_scale RANKS ITERATIONS flow|step [nofuse]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "sim/simgrid/executor.hpp"

int main(int argc, char** argv) {
  using namespace dtsim;
  const auto t0 = std::chrono::steady_clock::now();
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s RANKS ITERATIONS flow|step [nofuse]\n", argv[0]);
    return 2;
  }
  const int ranks = std::atoi(argv[1]);
  const int iterations = std::atoi(argv[2]);
  const std::string fidelity = argv[3];
  const bool fuse = !(argc > 4 && std::string(argv[4]) == "nofuse");
  const int per_node = ranks >= 8 ? 8 : ranks;
  const std::string scenario = std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  const Scenario s = load_scenario(
      scenario,
      {"cluster.nodes=" + std::to_string(ranks / per_node), "cluster.devices_per_node=" + std::to_string(per_node),
       "run.iterations=" + std::to_string(iterations), "run.warmup=0", "run.fidelity=" + fidelity});
  const Plan plan = compile_plan(s);
  Recorder recorder;
  sg::SimGridExecutor engine(s.cluster, sg::SimGridOptions{s.run.fidelity, fuse});
  const RunInfo info = engine.run(plan, recorder);
  const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  std::printf("%d %d %s %s %.3f %.3f %.3f %.1f %ld %.0f\n", ranks, iterations, fidelity.c_str(),
              fuse ? "fused" : "plain", total_s, engine.stats().platform_s, info.wall_time_s, rss_mib,
              engine.stats().activities, static_cast<double>(engine.stats().activities) / info.wall_time_s);
  return 0;
}
