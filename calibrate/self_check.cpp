// calibrate's check of itself (self_check.hpp).
#include "calibrate/self_check.hpp"

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

std::string self_check_scenario(int ranks, int hosts) {
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

std::optional<SelfCheck> run_self_check(const std::string& profile_path, real::HostComm& world, std::ostream& out) {
  const int ranks = world.size(), hosts = world.hosts();
  if (ranks < 2 || hosts < 1 || ranks % hosts != 0) return std::nullopt;  // the same answer on every rank
  // Every rank writes its own copy of the job (hosts need not share a file system).
  const fs::path dir = fs::temp_directory_path() / fmt::format("dtsim-self-check-{}-{}", getpid(), world.rank());
  fs::create_directories(dir);
  const std::string scenario = (dir / "scenario.yaml").string();
  std::ofstream(scenario) << self_check_scenario(ranks, hosts);
  real::LaunchOptions o;
  o.scenario = scenario;
  o.backend = Backend::Cpu;
  o.out = (dir / "real").string();
  o.compute_scale = "1";
  o.quiet = true;
  o.trace = false;
  o.shrink = false;
  // The launcher reports as dtsim-real does; calibrate prints one line of its own instead.
  std::ostringstream launcher_report;
  std::streambuf* const cout_buf = std::cout.rdbuf(launcher_report.rdbuf());
  int code = 1;
  try {
    code = real::launch(o, world);
  } catch (...) {
    std::cout.rdbuf(cout_buf);
    fs::remove_all(dir);
    throw;
  }
  std::cout.rdbuf(cout_buf);
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
  c.job = fmt::format(
      "ring AllReduce of a 4M-parameter synthetic model, 4 MB buckets, {} ranks on {} host(s), {} "
      "iterations",
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
