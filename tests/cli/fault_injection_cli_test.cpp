// Fault injection through the CLI: the failure scenario under random seeds, failure rates and both
// recoveries, on both engines. Every run ends, and its report adds up: useful time and time lost by
// cause make the horizon; goodput never exceeds throughput, and under restart it is throughput times
// the useful fraction. (The timeline itself over 20,000 random seeds: tests/sim/faults/fault_injection_test.cpp.)
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

TEST_CASE("fault injection: the failure scenario under random seeds and failure times on both engines") {
  std::mt19937_64 rng(7);
  for (int k = 0; k < 6; ++k) {
    const int seed = std::uniform_int_distribution<int>(1, 1000000)(rng);
    const double mtbf_h = std::exp(std::uniform_real_distribution<double>(std::log(0.5), std::log(200.0))(rng));
    const std::string engine = k % 2 == 0 ? "simgrid" : "analytical";
    const std::string recovery = k % 3 == 0 ? "elastic" : "restart";
    const std::string out = dtsim::test::temp_dir(fmt::format("fault-injection-{}", k));
    const std::string args = fmt::format(
        "run scenarios/failures_checkpointing.yaml --engine {} --no-trace --set run.seed={} --set faults.mtbf={}h "
        "--set faults.recovery={} --set faults.trials=5 --out '{}'",
        engine, seed, mtbf_h, recovery, out);
    INFO("dtsim " << args);
    const auto r = dtsim::test::run_dtsim(args, fmt::format("fault-injection-{}", k));
    REQUIRE(r.code == 0);
    const auto m = nlohmann::json::parse(dtsim::test::slurp(out + "/metrics.json"));
    const auto& f = m["faults"];
    INFO(f.dump());
    double parts = f["useful_s"].get<double>();
    for (const char* key : {"checkpoint", "detection", "lost_work", "no_workers", "restart"}) {
      REQUIRE(f["lost_s"].contains(key));
      parts += f["lost_s"][key].get<double>();
    }
    CHECK(parts == Approx(f["horizon_s"].get<double>()).epsilon(1e-9));
    CHECK(f["goodput_samples_per_s"].get<double>() <= f["throughput_samples_per_s"].get<double>() * (1 + 1e-9));
    if (recovery == "restart") {
      CHECK(f["goodput_samples_per_s"].get<double>() ==
            Approx(f["throughput_samples_per_s"].get<double>() * f["useful_s"].get<double>() /
                   f["horizon_s"].get<double>())
                .epsilon(1e-9));
    }
  }
}

TEST_CASE("fault timelines that would take minutes are refused in one line at the key that makes them long") {
  auto lines = [](const std::string& t) { return std::count(t.begin(), t.end(), '\n'); };
  // A billion trials, and a checkpoint every nanosecond: each used to run for hours.
  const auto trials = dtsim::test::run_dtsim(
      "run scenarios/failures_checkpointing.yaml --engine analytical --no-trace --set faults.trials=1e9 --out '" +
          dtsim::test::temp_dir("fault-long-trials") + "'",
      "fault-long-trials");
  CHECK(trials.code == 2);
  CHECK(lines(trials.err) == 1);
  CHECK(trials.err.find("--set faults.trials=1e9: error: faults.trials: 1000000000 trials of ") != std::string::npos);
  const auto interval = dtsim::test::run_dtsim(
      "run scenarios/failures_checkpointing.yaml --engine analytical --no-trace --set faults.checkpoint_interval=1ns "
      "--out '" +
          dtsim::test::temp_dir("fault-long-interval") + "'",
      "fault-long-interval");
  CHECK(interval.code == 2);
  CHECK(lines(interval.err) == 1);
  CHECK(interval.err.find("error: faults.checkpoint_interval: ") != std::string::npos);
  // dtsim checkpoint scans 25 intervals around Young/Daly's: with a checkpoint of nanoseconds and a
  // failure a minute, that interval is microseconds.
  const auto scan = dtsim::test::run_dtsim(
      "checkpoint scenarios/failures_checkpointing.yaml --set faults.write_bandwidth=100TB/s --set faults.mtbf=1min",
      "fault-long-scan");
  CHECK(scan.code == 2);
  CHECK(lines(scan.err) == 1);
  CHECK(scan.err.find("--trials 200 x --points 25: the scan would step through ") != std::string::npos);
}
