// calibrate's check of itself (self_check.hpp).
#include "calibrate/self_check.hpp"

#include <mpi.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <ostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibrate/validate.hpp"
#include "core/base/error.hpp"
#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/loader.hpp"
#include "real/launch.hpp"
#include "sim/run.hpp"

namespace dtsim::calib {

namespace fs = std::filesystem;

std::string self_check_scenario(int ranks, int hosts, const std::string& cuda_device) {
  if (!cuda_device.empty()) {
    return fmt::format(
        R"(# dtsim calibrate's self-check on cuda (calibrate/self_check.hpp): scenarios/hybrid_gpt_1gpu.yaml's GPT, 8 layers
name: calibrate_self_check
model:
  name: transformer
  transformer: {{layers: 8, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50304}}
  dtype: bf16
  grad_dtype: bf16
  optimizer: adam
cluster:
  nodes: {}
  devices_per_node: {}
  device: {}
strategy:
  kind: hybrid
  micro_batch: 2
  global_batch: {}
run:
  iterations: 5
  warmup: 1
  engine: analytical
)",
        hosts, ranks / hosts, cuda_device, 8 * ranks);
  }
  return fmt::format(
      R"(# dtsim calibrate's self-check (calibrate/self_check.hpp): bench/validation/ring_2_16MB.yaml's shape
name: calibrate_self_check
model:
  name: synthetic
  synthetic:
    params: 4e6
    flops_per_sample: 5MFLOP
    layers: 4
  batch_per_worker: 8
cluster:
  nodes: {}
  devices_per_node: {}
  device: cpu_socket
strategy:
  kind: allreduce
  allreduce:
    algorithm: ring
    bucket_size: 4MB
    overlap: false
run:
  iterations: 30
  warmup: 3
  engine: analytical
)",
      hosts, ranks / hosts);
}

std::optional<SelfCheck> run_self_check(const std::string& profile_path, real::HostComm& world, std::ostream& out,
                                        Backend backend, const std::string& cuda_device) {
  const int ranks = world.size(), hosts = world.hosts();
  const bool cuda = backend == Backend::Cuda;
  // The same answer on every rank.
  if ((cuda ? cuda_device.empty() : ranks < 2) || hosts < 1 || ranks % hosts != 0) return std::nullopt;
  // Every rank writes its own copy of the job (hosts need not share a file system).
  const fs::path dir = fs::temp_directory_path() / fmt::format("dtsim-self-check-{}-{}", getpid(), world.rank());
  fs::create_directories(dir);
  const std::string scenario = (dir / "scenario.yaml").string();
  std::ofstream(scenario) << self_check_scenario(ranks, hosts, cuda ? cuda_device : "");
  real::LaunchOptions o;
  o.scenario = scenario;
  o.backend = backend;
  o.out = (dir / "real").string();
  o.compute_scale = "1";
  o.quiet = true;
  o.trace = false;
  o.shrink = false;
  // The launcher reports as dtsim-real does (rank 0); calibrate prints one line of its own instead. Ranks that are
  // threads of one process (cuda without mpirun) share std::cout: rank 0 alone swaps its buffer.
  std::ostringstream launcher_report;
  const bool swap = world.mpi() != MPI_COMM_NULL || world.rank() == 0;
  std::streambuf* const cout_buf = swap ? std::cout.rdbuf(launcher_report.rdbuf()) : nullptr;
  int code = 1;
  try {
    code = real::launch(o, world);
  } catch (...) {
    if (swap) std::cout.rdbuf(cout_buf);
    fs::remove_all(dir);
    throw;
  }
  if (swap) std::cout.rdbuf(cout_buf);
  if (code != 0) {
    fs::remove_all(dir);
    throw RuntimeError("calibrate's self-check: the real run of its job failed its checks");
  }
  if (world.rank() != 0) {
    fs::remove_all(dir);
    return std::nullopt;
  }
  const nlohmann::json measured = nlohmann::json::parse(std::ifstream(dir / "real" / "metrics.json"));
  const Scenario s = load_scenario(scenario, {"cluster.calibration=" + fs::absolute(profile_path).string()});
  const nlohmann::json predicted = run_metrics_json(sim::run_plan(s, compile_plan(s)).metrics);
  fs::remove_all(dir);
  SelfCheck c;
  c.job = cuda ? fmt::format(
                     "an 8-layer GPT of hidden 2048 (bf16, Adam), 4 micro-batches of 2 a GPU, {} {} GPU(s) on "
                     "{} host(s), {} iterations",
                     ranks, cuda_device, hosts, s.run.iterations)
               : fmt::format(
                     "ring AllReduce of a 4M-parameter synthetic model, 4 MB buckets, {} ranks on {} host(s), "
                     "{} iterations",
                     ranks, hosts, s.run.iterations);
  c.measured_s = measured.at("iteration_time_s").at("mean").get<double>();
  c.predicted_s = predicted.at("iteration_time_s").at("mean").get<double>();
  out << fmt::format("\nself-check ({}): measured {:.4g} ms, predicted {:.4g} ms with this profile: {:+.1f} %, {}\n",
                     c.job, c.measured_s * 1e3, c.predicted_s * 1e3, c.error_pct(),
                     c.passed() ? fmt::format("within {:g} %", kSelfCheckBoundPct)
                                : fmt::format("FAILED: past {:g} % (measure again on a quieter machine; dtsim "
                                              "validate will say so)",
                                              kSelfCheckBoundPct));
  return c;
}

}  // namespace dtsim::calib
