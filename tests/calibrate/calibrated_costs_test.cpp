// With cluster.calibration both engines take their costs from the profile: the analytical cost
// model gives the profile's closed forms exactly, and the SimGrid platform (base links plus
// per-message-size factors) gives the same iteration times as the analytical engine.
#include <catch2/catch.hpp>

#include <functional>

#include "core/calibration/calibration.hpp"
#include "core/calibration/profile_reader.hpp"
#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "models/cost/cost_model.hpp"
#include "tests/support/calibrated_fixtures.hpp"

using namespace dtsim;

namespace {

using test::edited_profile;
using test::kCompute;
using test::kUpdate;
using test::link_time;

const std::string& kScenario = test::kCalibScenario;

double iteration_time(const std::string& engine, const std::string& sets, const std::string& tag) {
  return test::run_calibrated(kScenario, engine, sets, tag).iteration;
}

}  // namespace

TEST_CASE("the analytical cost model takes compute and links from the profile", "[calibrated]") {
  const Scenario s = load_scenario(kScenario);
  const Plan plan = compile_plan(s);
  const cost::CostModel costs(s.cluster, plan);
  const RankProgram& rank = plan.ranks[0];
  // 10 us per op + F / 10 GFLOP/s, whatever the device zoo says of cpu_socket and the dtype.
  CHECK(costs.compute_time(rank, ComputeOp{4e6, 0, Dtype::Fp32}) == Approx(10e-6 + 4e6 / 1e10));
  CHECK(costs.compute_time(rank, ComputeOp{4e6, 1e12, Dtype::Bf16}) == Approx(10e-6 + 4e6 / 1e10));
  // Ring AllReduce over 2 ranks: 2 (n - 1) rounds of S / n bytes, each in the segment of S / n.
  const CollectiveAlgorithm& ring = find_algorithm("ring");
  for (double bytes : {16e3, 100e3, 400e3, 8e6}) {
    const double t = costs.collective_time(CollectiveOp{CollectiveKind::AllReduce, bytes, 0, &ring, 0});
    CHECK(t == Approx(2 * link_time(bytes / 2)));
  }
  // A point-to-point transfer inside the node: the segment of its own size.
  const cost::TransferPath small = costs.path(Placement{0, 0}, Placement{0, 1}, 1000);
  CHECK(small.alpha == Approx(2e-6));
  CHECK(small.from_bw == Approx(1e9));
  const cost::TransferPath large = costs.path(Placement{0, 0}, Placement{0, 1}, 1e6);
  CHECK(large.alpha == Approx(10e-6));
  CHECK(large.to_bw == Approx(4e9));
}

TEST_CASE("a fused attention kernel takes the profile's attention curve of its dtype, else the GEMMs'",
          "[calibrated]") {
  const std::string profile = edited_profile(
      "attention", "  memory:\n    sgd_step:",
      "  attention:\n    bf16:\n      - {min_flops: 0, overhead_s: 20e-6, rate_flops: 5e9}\n  memory:\n    sgd_step:");
  const Scenario s = load_scenario(kScenario, {"cluster.calibration=" + profile});
  const Plan plan = compile_plan(s);
  const cost::CostModel costs(s.cluster, plan);
  ComputeOp attention{4e6, 0, Dtype::Bf16};
  attention.cls = KernelClass::Attention;
  CHECK(costs.compute_time(plan.ranks[0], attention) == Approx(20e-6 + 4e6 / 5e9));
  // A GEMM of the same dtype, and attention in a dtype the profile has no attention curve for: the compute curve.
  CHECK(costs.compute_time(plan.ranks[0], ComputeOp{4e6, 0, Dtype::Bf16}) == Approx(10e-6 + 4e6 / 1e10));
  attention.dtype = Dtype::Fp16;
  CHECK(costs.compute_time(plan.ranks[0], attention) == Approx(10e-6 + 4e6 / 1e10));
  // The curve is read back as written.
  const auto p = load_calibration_profile(profile);
  REQUIRE(p->attention.count("bf16"));
  CHECK(p->attention.at("bf16").fit.time(4e6) == Approx(20e-6 + 4e6 / 5e9));
}

TEST_CASE("both engines time a GPT's attention kernels by the attention curve, its other kernels as before",
          "[calibrated][simgrid]") {
  // The 1.3B GPT on one device: 24 layers, 4 micro-batches of 2 x 2048 tokens, causal flash attention of
  // F = 4 tokens s h / 2 FLOPs forward and 2.5 F backward. With an attention curve of 20 us + F / 5 GFLOP/s
  // each of its 96 forward and 96 backward kernels moves from the compute curve (10 us + F / 10 GFLOP/s)
  // to it, and the step by their sum: every op of one device runs one after the other.
  const std::string gpt = std::string(DTSIM_SOURCE_DIR) + "/scenarios/hybrid_gpt_1gpu.yaml";
  const std::string with = edited_profile(
      "gpt-attention", "  memory:\n    sgd_step:",
      "  attention:\n    bf16:\n      - {min_flops: 0, overhead_s: 20e-6, rate_flops: 5e9}\n  memory:\n    sgd_step:");
  const double f = 4 * (2 * 2048.0) * 2048 * 2048 / 2;
  const auto moved = [](double flops) { return (20e-6 + flops / 5e9) - (10e-6 + flops / 1e10); };
  const double expected = 96 * (moved(f) + moved(2.5 * f));
  for (const char* engine : {"analytical", "simgrid"}) {
    INFO(engine);
    const double before =
        test::run_calibrated(gpt, engine, "--set cluster.calibration='" + test::kCalibProfile + "'", "gpt-a").iteration;
    const double after =
        test::run_calibrated(gpt, engine, "--set cluster.calibration='" + with + "'", "gpt-b").iteration;
    CHECK(after - before == Approx(expected).epsilon(1e-6));
  }
}

TEST_CASE("SimGrid with a profile agrees with the analytical engine in both link regimes", "[calibrated][simgrid]") {
  // 100 KB buckets: 50 KB messages (first segment); 400 KB: 200 KB messages (second segment).
  for (const char* bucket : {"100KB", "400KB"}) {
    const std::string sets = std::string("--set strategy.allreduce.bucket_size=") + bucket;
    const double analytical = iteration_time("analytical", sets, std::string("a") + bucket);
    const double simgrid = iteration_time("simgrid", sets, std::string("s") + bucket);
    CHECK(simgrid == Approx(analytical).epsilon(0.01));
  }
  // The closed form of the 400 KB case: 4 forward ops of 1 MFLOP (4 samples x 1 MFLOP over 4
  // layers), 4 backward of 2, one AllReduce of 400 KB, and the SGD update: a streaming loop of
  // 12 bytes per parameter on the profile's sgd_step curve (1 us + 1.2 MB / 10 GB/s), slower than
  // its 2 FLOPs per parameter on the compute curve.
  const double compute = 4 * (10e-6 + 1e6 / 1e10) + 4 * (10e-6 + 2e6 / 1e10);
  const double t = iteration_time("analytical", "--set strategy.allreduce.bucket_size=400KB", "closed");
  CHECK(t == Approx(compute + 2 * link_time(200e3) + 1e-6 + 1.2e6 / 1e10).epsilon(1e-3));
}

namespace {

// The test profile with a cross_host link too: 20 us + S / 2 GB/s below 100 kB, 50 us + S / 5 GB/s above.
std::string profile_with_cross_host() {
  return edited_profile("cross", "  compute:\n    fp32:",
                        "    cross_host:\n      - {min_bytes: 0, latency_s: 20e-6, bandwidth_Bps: 2e9}\n"
                        "      - {min_bytes: 1e5, latency_s: 50e-6, bandwidth_Bps: 5e9}\n  compute:\n    fp32:");
}

double cross_time(double s) { return s < 1e5 ? 20e-6 + s / 2e9 : 50e-6 + s / 5e9; }

}  // namespace

TEST_CASE("ranks on two nodes take the cross_host link on both engines", "[calibrated][simgrid]") {
  const std::string profile = profile_with_cross_host();
  const std::string sets = "--set cluster.nodes=2 --set cluster.devices_per_node=1 --set cluster.calibration='" +
                           profile + "' --set cluster.transport=tcp";
  const Scenario s =
      load_scenario(kScenario, {"cluster.nodes=2", "cluster.devices_per_node=1", "cluster.calibration=" + profile});
  const Plan plan = compile_plan(s);
  const cost::CostModel costs(s.cluster, plan);
  const CollectiveAlgorithm& ring = find_algorithm("ring");
  for (double bytes : {16e3, 100e3, 400e3}) {
    CHECK(costs.collective_time(CollectiveOp{CollectiveKind::AllReduce, bytes, 0, &ring, 0}) ==
          Approx(2 * cross_time(bytes / 2)));
  }
  const cost::TransferPath p = costs.path(Placement{0, 0}, Placement{1, 0}, 1e6);
  CHECK(p.alpha == Approx(50e-6));
  CHECK(p.from_bw == Approx(5e9));
  // SimGrid: NIC links at the first segment's latency and the last one's bandwidth, scaled per
  // message by the factors; whatever cluster.transport says (CM02, no TCP factors).
  for (const char* bucket : {"100KB", "400KB"}) {
    const std::string all = sets + " --set strategy.allreduce.bucket_size=" + bucket;
    const double analytical = iteration_time("analytical", all, std::string("xa") + bucket);
    const double simgrid = iteration_time("simgrid", all, std::string("xs") + bucket);
    CHECK(simgrid == Approx(analytical).epsilon(0.01));
  }
}

TEST_CASE("the profile's collective buffer work delays each collective on both engines", "[calibrated][simgrid]") {
  // dtsim-real fills and checks each collective's buffer on the comm stream: 5 us + S / 2 GB/s.
  const std::string profile = edited_profile("buffer", "  memory:\n    sgd_step:",
                                             "  memory:\n    collective_buffer:\n"
                                             "      - {min_bytes: 0, fixed_s: 5e-6, rate_Bps: 2e9}\n    sgd_step:");
  REQUIRE(load_calibration_profile(profile)->collective_buffer_time(400e3) == Approx(5e-6 + 400e3 / 2e9));
  const std::string sets = "--set strategy.allreduce.bucket_size=400KB --set cluster.calibration='" + profile + "'";
  const double analytical = iteration_time("analytical", sets, "buf-a");
  CHECK(analytical == Approx(kCompute + 5e-6 + 400e3 / 2e9 + 2 * link_time(200e3) + kUpdate).epsilon(1e-3));
  CHECK(iteration_time("simgrid", sets, "buf-s") == Approx(analytical).epsilon(0.01));
}

TEST_CASE("ranks beyond the calibrated machine's cores share them in the analytical engine", "[calibrated]") {
  // 4 ranks on a 2-core host: ranks 0 and 2 compute on core 0, one op at a time, so every rank's
  // compute and update take twice as long per iteration; the ring (6 rounds of 100 KB) follows.
  const std::string four = edited_profile("cores", "  ranks: 2", "  ranks: 4");
  const std::string sets = "--set cluster.devices_per_node=4 --set strategy.allreduce.bucket_size=400KB";
  const double ring = 6 * link_time(100e3);
  const double shared = iteration_time("analytical", sets + " --set cluster.calibration='" + four + "'", "cores4");
  CHECK(shared == Approx(2 * kCompute + ring + 2 * kUpdate).epsilon(1e-3));
  // A profile measured with 2 ranks says nothing of how 4 share the host: a device per rank.
  const double own = iteration_time("analytical", sets, "cores2");
  CHECK(own == Approx(kCompute + ring + kUpdate).epsilon(1e-3));
}

TEST_CASE("point-to-point transfers on one host take the same_host_p2p link when the profile has one", "[calibrated]") {
  const std::string profile = edited_profile("p2p", "  compute:\n    fp32:",
                                             "    same_host_p2p:\n"
                                             "      - {min_bytes: 0, latency_s: 3e-6, bandwidth_Bps: 8e9}\n"
                                             "  compute:\n    fp32:");
  const Scenario s = load_scenario(kScenario, {"cluster.calibration=" + profile});
  const Plan plan = compile_plan(s);
  const cost::CostModel costs(s.cluster, plan);
  const cost::TransferPath p = costs.path(Placement{0, 0}, Placement{0, 1}, 1e6);
  CHECK(p.alpha == Approx(3e-6));
  CHECK(p.from_bw == Approx(8e9));
  CHECK(p.to_bw == Approx(8e9));
  // Collectives keep the ring-fitted same_host link.
  const CollectiveAlgorithm& ring = find_algorithm("ring");
  CHECK(costs.collective_time(CollectiveOp{CollectiveKind::AllReduce, 400e3, 0, &ring, 0}) ==
        Approx(2 * link_time(200e3)));
}

TEST_CASE("a measured bus bandwidth curve holds where the profile has no link of this host", "[calibrated]") {
  // The hand-made profile as one rank's (a single GPU's, or one fitted to traces): no links at all.
  const std::string linkless = edited_profile(
      "linkless", {{"  ranks: 2", "  ranks: 1"},
                   {"  links:\n    same_host:\n      - {min_bytes: 0, latency_s: 2e-6, bandwidth_Bps: 1e9}\n      - "
                    "{min_bytes: 65536, latency_s: 10e-6, bandwidth_Bps: 4e9}\n",
                    "  links: {}\n"}});
  const std::string busbw = "cluster.intra_node.collective_busbw=64KiB:2GB/s,16MiB:2GB/s";
  const CollectiveAlgorithm& ring = find_algorithm("ring");
  const CollectiveOp op{CollectiveKind::AllReduce, 4e6, 0, &ring, 0};
  {
    const Scenario s = load_scenario(kScenario, {"cluster.calibration=" + linkless, busbw});
    const Plan plan = compile_plan(s);
    const cost::CostModel costs(s.cluster, plan);
    CHECK(costs.busbw_applies());
    CHECK(costs.op_alpha_beta(op).bw_intra == Approx(2e9));
  }
  {  // The profile's same_host link wins over the curve: 4 GB/s at 2 MB rounds.
    const Scenario s = load_scenario(kScenario, {busbw});
    const Plan plan = compile_plan(s);
    const cost::CostModel costs(s.cluster, plan);
    CHECK(!costs.busbw_applies());
    CHECK(costs.op_alpha_beta(op).bw_intra == Approx(4e9));
  }
  // Both engines take the curve alike.
  const std::string sets = "--set cluster.calibration=" + linkless + " --set " + busbw;
  const double analytical = iteration_time("analytical", sets, "linkless-a");
  const double simgrid = iteration_time("simgrid", sets, "linkless-s");
  CHECK(simgrid == Approx(analytical).epsilon(0.01));
}

namespace {

// The test profile measured on a host of `llc` bytes of last-level cache, with a same_host link of 1 us + S / 8 GB/s
// and an sgd_step of 0.5 us + S / 20 GB/s when the data stays in it (above the update's 30 us of FLOPs).
std::string profile_with_cache(const std::string& tag, const std::string& llc) {
  return edited_profile(
      tag,
      {{"  quick: false", "  quick: false\n" + llc},
       {"  compute:\n    fp32:",
        "    same_host_in_cache:\n      - {min_bytes: 0, latency_s: 1e-6, bandwidth_Bps: 8e9}\n  compute:\n    fp32:"},
       {"  memory:\n    sgd_step:",
        "  memory:\n    sgd_step_in_cache:\n      - {min_bytes: 0, fixed_s: 0.5e-6, rate_Bps: 2e10}\n    sgd_step:"}});
}

}  // namespace

TEST_CASE("a plan whose optimizer state fits the host's cache takes the in-cache curves on both engines",
          "[calibrated][simgrid]") {
  // ring2: 1e5 parameters a rank, an SGD step of 1.2 MB a rank, 2.4 MB on the host.
  const CollectiveAlgorithm& ring = find_algorithm("ring");
  const CollectiveOp bucket{CollectiveKind::AllReduce, 400e3, 0, &ring, 0};
  const auto costs_of = [](const std::string& profile, const std::function<void(const cost::CostModel&)>& check) {
    const Scenario s = load_scenario(kScenario, {"cluster.calibration=" + profile});
    const Plan plan = compile_plan(s);
    check(cost::CostModel(s.cluster, plan));
    return cost::data_in_cache(s.cluster, plan);
  };
  const auto update = [](const cost::CostModel& c) {
    return c.update_time(compile_plan(load_scenario(kScenario)).ranks[0], UpdateOp{1e5, 2e5, 1.2e6, Dtype::Fp32});
  };
  SECTION("4 MB of cache holds it: the in-cache link and SGD step") {
    const std::string profile = profile_with_cache("fits", "  llc_bytes: 4e6");
    REQUIRE(load_calibration_profile(profile)->machine.llc_bytes == 4e6);
    CHECK(costs_of(profile, [&](const cost::CostModel& c) {
      CHECK(c.collective_time(bucket) == Approx(2 * (1e-6 + 200e3 / 8e9)));
      CHECK(update(c) == Approx(0.5e-6 + 1.2e6 / 2e10));
    }));
    const std::string sets = "--set strategy.allreduce.bucket_size=400KB --set cluster.calibration='" + profile + "'";
    const double analytical = iteration_time("analytical", sets, "cache-a");
    CHECK(analytical == Approx(kCompute + 2 * (1e-6 + 200e3 / 8e9) + 0.5e-6 + 1.2e6 / 2e10).epsilon(1e-3));
    CHECK(iteration_time("simgrid", sets, "cache-s") == Approx(analytical).epsilon(0.01));
  }
  SECTION("2 MB of cache does not, and a profile that does not know its cache says nothing: the curves out of it") {
    for (const std::string& llc : {std::string("  llc_bytes: 2e6"), std::string("")}) {
      const std::string profile = profile_with_cache("outgrown", llc);
      CHECK_FALSE(costs_of(profile, [&](const cost::CostModel& c) {
        CHECK(c.collective_time(bucket) == Approx(2 * link_time(200e3)));
        CHECK(update(c) == Approx(kUpdate));
      }));
      const std::string sets = "--set strategy.allreduce.bucket_size=400KB --set cluster.calibration='" + profile + "'";
      const double analytical = iteration_time("analytical", sets, "nocache-a");
      CHECK(analytical == Approx(kCompute + 2 * link_time(200e3) + kUpdate).epsilon(1e-3));
      CHECK(iteration_time("simgrid", sets, "nocache-s") == Approx(analytical).epsilon(0.01));
    }
  }
}
