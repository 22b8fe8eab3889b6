// Failures and checkpoints: Young/Daly where its assumptions hold, exact goodput without
// failures, seeds, elastic continuation, and bad keys.
#include <catch2/catch.hpp>

#include "core/base/error.hpp"
#include "core/scenario/loader.hpp"
#include "sim/analytical/symmetric.hpp"
#include "sim/faults/evaluate.hpp"
#include "tests/support/scenario_error.hpp"

using dtsim::test::error_of;

namespace {

using dtsim::faults::TimelineConfig;

// A job of 8 workers at 80 samples/s, one unit per worker.
TimelineConfig base_config() {
  TimelineConfig c;
  c.horizon_s = 1e8;
  c.checkpoint_cost_s = 10;
  c.restart_s = 0;
  c.detection_s = 0;
  c.unit_mtbf_s = 8e5;  // job MTBF 1e5 s
  c.units = 8;
  c.workers = 8;
  c.rate = [](int w) { return dtsim::faults::JobRate{0.1, 10.0 * w}; };
  return c;
}

const char* const kScenario = R"(name: t
model:
  name: resnet50
cluster:
  nodes: 2
  devices_per_node: 4
  device: a100_40gb
run:
  engine: analytical
)";

}  // namespace

TEST_CASE("the suggested interval and its overhead match Young and Daly") {
  const TimelineConfig c = base_config();
  const auto scan = dtsim::faults::scan_checkpoint_intervals(c, 1, 4, 25);
  const double yd = dtsim::young_daly_interval(10, 1e5);
  CHECK(scan.young_daly_s == Approx(yd));
  CHECK(scan.best_interval_s == Approx(yd).epsilon(0.05));
  TimelineConfig at = c;
  at.interval_s = yd;
  const auto r = dtsim::faults::simulate_trials(at, 1, 0, 4);
  const double overhead = 1.0 - r.goodput(c.horizon_s) / 80.0;
  CHECK(overhead == Approx(dtsim::young_daly_waste(10, yd, 1e5, 0)).epsilon(0.05));
}

TEST_CASE("without failures goodput is throughput less the checkpoint overhead exactly") {
  TimelineConfig c = base_config();
  c.unit_mtbf_s = 0;
  c.interval_s = 90;
  c.horizon_s = 100.0 * 1000;  // 1000 cycles of 90 s work + 10 s checkpoint
  const auto r = dtsim::faults::simulate_timeline(c, 7);
  CHECK(r.failures == 0);
  CHECK(r.goodput(c.horizon_s) == Approx(80.0 * 0.9).epsilon(1e-12));
  CHECK(r.checkpoint_s == Approx(10.0 * 1000).epsilon(1e-12));
}

TEST_CASE("the same seed gives the same result and another seed another") {
  TimelineConfig c = base_config();
  c.horizon_s = 1e6;
  c.interval_s = 1000;
  const auto a = dtsim::faults::simulate_timeline(c, 1);
  const auto b = dtsim::faults::simulate_timeline(c, 1);
  const auto d = dtsim::faults::simulate_timeline(c, 2);
  CHECK(a.useful_samples == b.useful_samples);
  CHECK(a.failures == b.failures);
  CHECK(a.useful_samples != d.useful_samples);
}

TEST_CASE("elastic continuation after one failure runs at the throughput of N-1 workers") {
  TimelineConfig c = base_config();
  c.unit_mtbf_s = 0;
  c.trace = {1000};
  c.horizon_s = 3000;
  c.detection_s = 30;
  c.recovery = dtsim::Recovery::Elastic;
  const auto r = dtsim::faults::simulate_timeline(c, 1);
  CHECK(r.failures == 1);
  CHECK(r.workers_at_end == 7);
  CHECK(r.useful_samples == Approx(1000 * 80.0 + (3000 - 1030) * 70.0));
  CHECK(r.lost_work_s == 0);
}

TEST_CASE("elastic rates come from the analytical engine for N-1 workers") {
  auto s = dtsim::load_scenario_text(std::string(kScenario) +
                                         "faults:\n  mtbf: 12h\n  recovery: elastic\n"
                                         "  scope: device\n",
                                     "x.yaml");
  const auto m = dtsim::analytical::run_analytical(s);
  const auto c = dtsim::faults::timeline_config(s, 0, m[0]);
  CHECK(c.units == 8);
  auto seven = s;
  seven.jobs[0].strategy.workers = 7;
  const auto m7 = dtsim::analytical::run_analytical(seven);
  CHECK(c.rate(7).samples_per_s == Approx(m7[0].throughput_samples_per_s));
  CHECK(c.rate(8).samples_per_s == Approx(m[0].throughput_samples_per_s));
}

TEST_CASE("the default checkpoint is weights and optimizer state") {
  const auto s = dtsim::load_scenario_text(std::string(kScenario) + "faults:\n  mtbf: 12h\n", "x.yaml");
  const auto m = dtsim::analytical::run_analytical(s);
  const auto r = dtsim::faults::evaluate_faults(s, 0, m[0]);
  CHECK(r.checkpoint_bytes == Approx(25557032.0 * 4 * 1));  // sgd: master weights only
  CHECK(r.checkpoint_s == 0);                               // no interval: no checkpoints
  CHECK(r.failures > 0);
}

TEST_CASE("bad fault keys give one exact line") {
  CHECK(error_of(std::string(kScenario) + "faults:\n  recovery: shrink\n") ==
        "x.yaml:11:13: error: faults.recovery: 'shrink' is not valid (valid: restart, elastic)");
  CHECK(error_of(std::string(kScenario) + "faults:\n  checkpoint_interval: often\n") ==
        "x.yaml:11:24: error: faults.checkpoint_interval: 'often' is neither iterations nor a time (use e.g. 500, "
        "30min or 2h)");
  CHECK(error_of(std::string(kScenario) + "faults:\n  trace: nowhere.txt\n") ==
        "x.yaml:11:10: error: faults.trace: no such file 'nowhere.txt'");
}
