// The two calibration terms both engines take (issue #5): the same_host_p2p link for point-to-point
// transfers between ranks of one host, and ranks sharing the calibrated machine's cores (SimGrid
// queues the ranks of a core one op at a time, as the analytical engine); then the engines'
// agreement on every scenario of bench/validation/ with profiles of its rank count.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "core/calibration/calibration.hpp"
#include "core/calibration/profile_reader.hpp"
#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/calibrated_fixtures.hpp"

using namespace dtsim;

namespace {

const std::string kSource = DTSIM_SOURCE_DIR;
const std::string kPs = kSource + "/bench/validation/ps_2w2s_4MB.yaml";

// A same_host_p2p link a quarter of same_host's latency and four times its bandwidth, range by range.
const std::string kP2pLinks =
    "    same_host_p2p:\n"
    "      - {min_bytes: 0, latency_s: 0.5e-6, bandwidth_Bps: 4e9}\n"
    "      - {min_bytes: 65536, latency_s: 2.5e-6, bandwidth_Bps: 16e9}\n";
double p2p_latency(double s) { return s < 65536 ? 0.5e-6 : 2.5e-6; }
double p2p_bandwidth(double s) { return s < 65536 ? 4e9 : 16e9; }
double same_latency(double s) { return s < 65536 ? 2e-6 : 10e-6; }
double same_bandwidth(double s) { return s < 65536 ? 1e9 : 4e9; }

std::string p2p_profile(const std::string& tag, int ranks) {
  return test::edited_profile(tag, {{"  ranks: 2", "  ranks: " + std::to_string(ranks)},
                                    {"  compute:\n    fp32:", kP2pLinks + "  compute:\n    fp32:"}});
}

void check_all(const std::vector<double>& got, double expected, double tolerance) {
  REQUIRE(!got.empty());
  for (double d : got) CHECK(d == Approx(expected).epsilon(tolerance));
}

}  // namespace

TEST_CASE("parameter-server pushes and pulls on one host take the same_host_p2p link on both engines",
          "[calibrated][simgrid]") {
  // 2 workers push half of their gradients to each of 2 colocated shards at once (then pull them
  // back at once): every worker's link carries its two pushes and every shard's link its two
  // workers', so each transfer of a shard's S bytes takes latency + 2 S / bandwidth of the segment
  // of S. The profile is measured with 2 ranks: no shared cores here.
  const std::string with_p2p = p2p_profile("ps-p2p", 2);
  for (const double params : {1e6, 1e4}) {  // shards of 2 MB (the second range) and 20 kB (the first)
    const double shard = params * 4 / 2;
    const std::string tag = std::to_string(static_cast<int>(params));
    const std::string sets = "--set model.synthetic.params=" + tag + " --set run.iterations=4 --set run.warmup=1";
    const double p2p = p2p_latency(shard) + 2 * shard / p2p_bandwidth(shard);
    const double same = same_latency(shard) + 2 * shard / same_bandwidth(shard);
    REQUIRE(same > 3 * p2p);  // the profiles tell the two classes apart
    const auto sg = test::run_calibrated(kPs, "simgrid", sets + " --set cluster.calibration='" + with_p2p + "'",
                                         "ps-p2p-s" + tag, true);
    const auto an = test::run_calibrated(kPs, "analytical", sets + " --set cluster.calibration='" + with_p2p + "'",
                                         "ps-p2p-a" + tag, true);
    for (const char* kind : {"send", "recv"}) {
      check_all(sg.durations(kind, "", 1), p2p, 0.01);
      check_all(an.durations(kind, "", 1), p2p, 0.01);
    }
    CHECK(sg.iteration == Approx(an.iteration).epsilon(0.01));
    // Without the class, the same transfers take the ring-fitted same_host link (SimGrid took it even with one).
    const auto plain = test::run_calibrated(
        kPs, "simgrid", sets + " --set cluster.calibration='" + test::kCalibProfile + "'", "ps-same-s" + tag, true);
    check_all(plain.durations("send", "", 1), same, 0.01);
  }
}

TEST_CASE("a worker fills each push before it goes, one push after the other, on both engines",
          "[calibrated][simgrid]") {
  // dtsim-real writes a worker's gradients into each uncompressed push before its MPI_Isend, on the
  // posted stream (the profile's push_buffer curve: 1 ms + S / 1 GB/s here, much longer than a
  // transfer). Both workers push shard 1 then shard 0; the second fill ends 2 F after the backward
  // pass, and its transfers meet as before (each shard's link carries both workers' pushes), so the
  // iteration is exactly 2 F longer than without the curve. Servers' sends fill nothing. (Pushes
  // after the whole backward pass: with overlap shard 1's fill hides behind shard 0's backward ops.)
  const std::string sets = "--set run.iterations=4 --set run.warmup=1 --set strategy.parameter_server.overlap=false";
  const std::string plain = p2p_profile("push-plain", 2);
  const std::string filled = test::edited_profile(
      "push-fill",
      {{"  memory:\n    sgd_step:",
        "  memory:\n    push_buffer:\n      - {min_bytes: 0, fixed_s: 1e-3, rate_Bps: 1e9}\n    sgd_step:"}},
      plain);
  const double shard = 1e6 * 4 / 2;
  const double fill = 1e-3 + shard / 1e9;
  REQUIRE(load_calibration_profile(filled)->push_buffer_time(shard) == Approx(fill));
  for (const char* engine : {"analytical", "simgrid"}) {
    const auto before = test::run_calibrated(kPs, engine, sets + " --set cluster.calibration='" + plain + "'",
                                             std::string("push-0-") + engine);
    const auto after = test::run_calibrated(kPs, engine, sets + " --set cluster.calibration='" + filled + "'",
                                            std::string("push-1-") + engine, true);
    CHECK(after.iteration - before.iteration == Approx(2 * fill).epsilon(1e-3));
    // The transfers themselves keep their p2p time (latency + 2 S / bandwidth: two per link).
    check_all(after.durations("send", "", 1), p2p_latency(shard) + 2 * shard / p2p_bandwidth(shard), 0.01);
  }
}

TEST_CASE("gossip exchanges on one host take the same_host_p2p link on both engines", "[calibrated][simgrid]") {
  // 4 workers averaging with a random peer after each step, on a 2-core profile measured with 4 ranks
  // (shared cores too); 4 MB each way per exchange, on the measured-shape profile's 10 GB/s p2p link.
  const std::string measured = test::edited_profile("gossip4", {{"  ranks: 2", "  ranks: 4"}},
                                                    kSource + "/tests/calibrate/data/profile_measured.yaml");
  const std::string scenario = kSource + "/bench/validation/ring_4_4MB.yaml";
  const std::string sets = "--set sync.policy=gossip --set cluster.calibration='" + measured + "'";
  const auto sg = test::run_calibrated(scenario, "simgrid", sets, "gossip-s", true);
  const auto an = test::run_calibrated(scenario, "analytical", sets, "gossip-a", true);
  CHECK(sg.iteration == Approx(an.iteration).epsilon(0.01));
  // An exchange takes at least one 4 MB transfer on the p2p link (more when peers collide: on a cpu
  // profile the exchanges wait for the cores, so that they all start together after the compute).
  for (const auto* run : {&sg, &an}) {
    const auto exchanges = run->durations("gossip");
    REQUIRE(!exchanges.empty());
    for (double d : exchanges) CHECK(d >= 1e-6 + 4e6 / 1e10 - 1e-9);
  }
  // With a profile whose communication leaves the cores alone (cuda), some exchange meets no other.
  const std::string own =
      test::edited_profile("gossip4c", {{"  ranks: 2", "  ranks: 4"}, {"  backend: cpu", "  backend: cuda"}},
                           kSource + "/tests/calibrate/data/profile_measured.yaml");
  const auto apart = test::run_calibrated(
      scenario, "simgrid", "--set sync.policy=gossip --set cluster.calibration='" + own + "'", "gossip-c", true);
  const auto exchanges = apart.durations("gossip");
  REQUIRE(!exchanges.empty());
  CHECK(*std::min_element(exchanges.begin(), exchanges.end()) == Approx(1e-6 + 4e6 / 1e10).epsilon(0.01));
}

TEST_CASE("ranks beyond the calibrated machine's cores take turns on SimGrid as on the analytical engine",
          "[calibrated][simgrid]") {
  // 4 ranks on a 2-core profile measured with 4 ranks: ranks 0 and 2 compute on core 0, 1 and 3 on
  // core 1, each pair asking for the core for the same ops at the same moments. Both engines queue
  // them (one op at a time: t each, the second after the first), so every rank's compute and
  // update take twice as long per iteration; the ring (6 rounds of 100 KB, on each rank's own links)
  // follows. (Processor sharing instead: tests/sim/simgrid/shared_cores_test.cpp.)
  const std::string four = test::edited_profile("cores4", "  ranks: 2", "  ranks: 4");
  const std::string sets = "--set cluster.devices_per_node=4 --set strategy.allreduce.bucket_size=400KB";
  const std::string shared = sets + " --set cluster.calibration='" + four + "'";
  const double closed = 2 * test::kCompute + 6 * test::link_time(100e3) + 2 * test::kUpdate;
  for (const char* engine : {"simgrid", "analytical"}) {
    const auto run = test::run_calibrated(test::kCalibScenario, engine, shared, std::string("cores-") + engine, true);
    CHECK(run.iteration == Approx(closed).epsilon(1e-3));
    check_all(run.durations("compute", "forward"), test::kForwardOp, 1e-3);
    check_all(run.durations("compute", "backward"), test::kBackwardOp, 1e-3);
    check_all(run.durations("update"), test::kUpdate, 1e-3);
  }
  // A profile measured with 2 ranks says nothing of how 4 share the host: a device per rank.
  const auto own = test::run_calibrated(test::kCalibScenario, "simgrid", sets, "cores-own");
  CHECK(own.iteration == Approx(test::kCompute + 6 * test::link_time(100e3) + test::kUpdate).epsilon(1e-3));
}

TEST_CASE("the engines agree within 1% on every validation scenario with profiles of its rank count",
          "[calibrated][simgrid]") {
  // Per scenario, profiles measured with its rank count on 2 cores (3 and 4 ranks share cores), with a
  // same_host_p2p link: the hand-made one, one shaped like a measured one, and that one with a push fill.
  int scenarios = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/bench/validation")) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string path = entry.path().string();
    const std::string name = entry.path().stem().string();
    const int ranks = static_cast<int>(compile_plan(load_scenario(path)).ranks.size());
    const std::string measured = test::edited_profile("m" + name, {{"  ranks: 2", "  ranks: " + std::to_string(ranks)}},
                                                      kSource + "/tests/calibrate/data/profile_measured.yaml");
    // ... and that one with the push fill measured here (memory.push_buffer: 2.7 us + S / 13.6 GB/s).
    const std::string filled = test::edited_profile(
        "f" + name,
        {{"  memory:\n    sgd_step:",
          "  memory:\n    push_buffer:\n      - {min_bytes: 0, fixed_s: 2.66e-6, rate_Bps: 1.36e10}\n    sgd_step:"}},
        measured);
    for (const auto& profile : {p2p_profile("h" + name, ranks), measured, filled}) {
      const std::string sets = "--set run.iterations=6 --set run.warmup=2 --set cluster.calibration='" + profile + "'";
      const double an = test::run_calibrated(path, "analytical", sets, "va-" + name).iteration;
      const double sg = test::run_calibrated(path, "simgrid", sets, "vs-" + name).iteration;
      INFO(name << " (" << ranks << " ranks), profile " << profile);
      CHECK(sg == Approx(an).epsilon(0.01));
    }
    ++scenarios;
  }
  CHECK(scenarios >= 8);
}
