// Calibration profiles: written profiles load back unchanged; missing, malformed and
// other-backend profiles are refused with one line naming the file, line, key and what is valid.
#include <catch2/catch.hpp>

#include <fstream>

#include "calibrate/calibrate.hpp"
#include "core/base/error.hpp"
#include "core/calibration/calibration.hpp"
#include "core/calibration/profile_reader.hpp"
#include "core/calibration/profile_writer.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/run_process.hpp"

using namespace dtsim;

namespace {

const std::string kData = std::string(DTSIM_SOURCE_DIR) + "/tests/calibrate/data/";

// The test profile with `from` replaced by `to`, written to a temporary file.
std::string variant(const std::string& from, const std::string& to, const std::string& tag) {
  std::string text = test::slurp(kData + "profile.yaml");
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  const std::string path = test::temp_dir("profile-" + tag) + "/profile.yaml";
  std::ofstream(path) << text;
  return path;
}

std::string refusal(const std::string& path, std::optional<Backend> backend = std::nullopt) {
  try {
    load_calibration_profile(path, backend);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the hand-made profile loads with its segments", "[profile]") {
  const auto p = load_calibration_profile(kData + "profile.yaml", Backend::Cpu);
  CHECK(p->machine.hostname == "testhost");
  CHECK(p->machine.backend == Backend::Cpu);
  const FittedCurve* same = p->link(kSameHost);
  REQUIRE(same);
  CHECK(p->link(kCrossHost) == nullptr);
  REQUIRE(same->fit.segments.size() == 2);
  CHECK(same->fit.time(1024) == Approx(2e-6 + 1024 / 1e9));
  CHECK(same->fit.time(1 << 20) == Approx(10e-6 + (1 << 20) / 4e9));
  CHECK(same->samples.size() == 4);
  // Half precision falls back to the fp32 curve; no roofline: memory traffic does not count.
  CHECK(p->compute_time(Dtype::Fp16, 1e9, 1e12) == Approx(10e-6 + 0.1));
  CHECK(p->compute_time(Dtype::Fp32, 0, 0) == 0);
}

TEST_CASE("a written profile loads back with the same fits, samples and residuals", "[profile]") {
  calib::Measurements m;
  for (double s = 8; s <= 1 << 22; s *= 4) m.exchange[kSameHost].push_back(Sample{s, 3e-6 + s / 2e9});
  for (double f = 1e4; f <= 1e9; f *= 10) m.gemm["fp32"].push_back(Sample{f, 1e-6 + f / 3e10});
  m.memory = {Sample{1 << 20, 2e-4}, Sample{1 << 24, 2e-3}};
  m.compression["topk"] = {Sample{1 << 16, 1e-4}, Sample{1 << 20, 1.5e-3}, Sample{1 << 22, 6e-3}};
  m.collectives.push_back(CollectiveSample{"allreduce", "ring", 2, 1 << 20, 1e-3, 1e9, 1e9, 0});
  const CalibrationProfile p = calib::fit_profile(calib::this_machine(Backend::Cpu, 2, 1, true), m);
  // The collective's prediction: ring closed form 2 (n - 1) (alpha + S / n / beta) at n = 2.
  CHECK(p.collectives[0].predicted == Approx(2 * (3e-6 + (1 << 19) / 2e9)).epsilon(1e-6));
  // The sgd_step line through both samples; its rate is the memory bandwidth reported.
  CHECK(p.memory_bandwidth == Approx(((1 << 24) - (1 << 20)) / 1.8e-3));
  CHECK(p.memory_time(1 << 22) == Approx(2e-4 + ((1 << 22) - (1 << 20)) * 1.8e-3 / ((1 << 24) - (1 << 20))));

  const std::string path = test::temp_dir("profile-roundtrip") + "/profile.yaml";
  std::ofstream(path) << profile_yaml(p);
  const auto q = load_calibration_profile(path, Backend::Cpu);
  CHECK(q->machine.hostname == p.machine.hostname);
  CHECK(q->machine.quick);
  const Segment& a = p.links.at(kSameHost).fit.segments[0];
  const Segment& b = q->links.at(kSameHost).fit.segments[0];
  CHECK(b.fixed == Approx(a.fixed).epsilon(1e-5));
  CHECK(b.per_unit == Approx(a.per_unit).epsilon(1e-5));
  CHECK(q->links.at(kSameHost).samples.size() == m.exchange[kSameHost].size());
  CHECK(q->compute.at("fp32").residuals.points == 6);
  CHECK(q->compression.at("topk").samples.size() == 3);
  CHECK(q->memory.at("sgd_step").samples.size() == 2);
  CHECK(q->exchange.at(kSameHost).size() == m.exchange[kSameHost].size());
  REQUIRE(q->collectives.size() == 1);
  CHECK(q->collectives[0].predicted == Approx(p.collectives[0].predicted).epsilon(1e-5));
}

TEST_CASE("bad profiles are refused with file, line, key and what is valid", "[profile]") {
  SECTION("missing") {
    const std::string e = refusal(kData + "no_such_profile.yaml");
    CHECK_THAT(e, Catch::Contains("no_such_profile.yaml: error: calibration profile"));
    CHECK_THAT(e, Catch::Contains("dtsim calibrate"));
  }
  SECTION("not YAML") {
    const std::string e = refusal(variant("  hosts: 1", "  hosts: [1", "yaml"));
    CHECK_THAT(e, Catch::Contains("error: calibration profile is not valid YAML"));
  }
  SECTION("a missing key") {
    const std::string e = refusal(variant("  cores: 2\n", "", "key"));
    CHECK_THAT(e, Catch::Contains("profile.yaml:6:3: error: machine.cores: missing key 'cores'"));
  }
  SECTION("a negative bandwidth") {
    const std::string e = refusal(variant("bandwidth_Bps: 1e9", "bandwidth_Bps: -3", "bw"));
    CHECK_THAT(e, Catch::Contains("profile.yaml:18:56: error:"));
    CHECK_THAT(e, Catch::Contains("fitted.links.same_host.0.bandwidth_Bps: must be a finite number > 0 (got -3)"));
  }
  SECTION("a count beyond an int (found by fuzz_calibration_profile: undefined behaviour before)") {
    const std::string e = refusal(variant("  cores: 2\n", "  cores: 2.3777e+14\n", "count"));
    CHECK_THAT(e, Catch::Contains("error: machine.cores: must be a whole number up to 2147483647 (got 2.3777e+14)"));
  }
  SECTION("segments out of order") {
    const std::string e = refusal(variant("min_bytes: 65536", "min_bytes: 0", "order"));
    CHECK_THAT(e, Catch::Contains("fitted.links.same_host.1.min_bytes: segments must be listed by increasing size"));
  }
  SECTION("an unknown link class") {
    const std::string e =
        refusal(variant("    same_host:\n      - {min_bytes: 0", "    same_hots:\n      - {min_bytes: 0", "class"));
    CHECK_THAT(e,
               Catch::Contains(
                   "'same_hots' is not known here (valid: cross_host, same_host, same_host_in_cache, same_host_p2p)"));
  }
  SECTION("an unknown compression kernel") {
    const std::string e =
        refusal(variant("  memory_bandwidth_Bps:",
                        "  compression:\n    top_k:\n      - {min_bytes: 0, fixed_s: 0, rate_Bps: 1e9}\n"
                        "  memory_bandwidth_Bps:",
                        "kernel"));
    CHECK_THAT(e, Catch::Contains("profile.yaml:27:5: error: fitted.compression.top_k: 'top_k' is not known here "
                                  "(valid: bf16, bf16_decompress, fp16, fp16_decompress, int8, int8_decompress, qsgd, "
                                  "qsgd_decompress, randomk, randomk_decompress, sign, sign_decompress, topk, "
                                  "topk_decompress)"));
  }
  SECTION("a compression kernel without a rate") {
    const std::string e = refusal(variant("  memory_bandwidth_Bps:",
                                          "  compression:\n    topk:\n      - {min_bytes: 0, fixed_s: 2e-5}\n"
                                          "  memory_bandwidth_Bps:",
                                          "rate"));
    CHECK_THAT(e,
               Catch::Contains("profile.yaml:28:9: error: fitted.compression.topk.0.rate_Bps: missing key 'rate_Bps'"));
  }
  SECTION("another format") {
    const std::string e = refusal(variant("dtsim-calibration/1", "dtsim-calibration/9", "format"));
    CHECK_THAT(e, Catch::Contains("format: 'dtsim-calibration/9' is not a known format (valid: dtsim-calibration/1)"));
  }
  SECTION("another backend") {
    const std::string e = refusal(kData + "profile.yaml", Backend::Cuda);
    CHECK_THAT(e, Catch::Contains("profile.yaml:9:12: error: machine.backend: the profile was measured with backend "
                                  "'cpu' but 'cuda' was asked for"));
  }
}

TEST_CASE("a scenario names its profile relative to itself, and a missing one points at the key", "[profile]") {
  const Scenario s = load_scenario(kData + "ring2.yaml");
  REQUIRE(s.cluster.calibration);
  CHECK(s.cluster.calibration->machine.hostname == "testhost");
  try {
    load_scenario(kData + "ring2.yaml", {"cluster.calibration=nowhere.yaml"});
    FAIL("a missing profile was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("cluster.calibration: calibration profile 'nowhere.yaml' not found"));
  }
}

TEST_CASE("dtsim validate refuses a missing, malformed or other-backend profile with exit code 2", "[profile][cli]") {
  const std::string scenario = "tests/calibrate/data/ring2.yaml";
  const auto missing = test::run_dtsim("validate " + scenario + " --calibration nowhere.yaml", "validate-missing");
  CHECK(missing.code == 2);
  CHECK_THAT(missing.err, Catch::Contains("nowhere.yaml: error: calibration profile 'nowhere.yaml' not found"));
  const auto other = test::run_dtsim(
      "validate " + scenario + " --backend cuda --calibration tests/calibrate/data/profile.yaml", "validate-cuda");
  CHECK(other.code == 2);
  CHECK_THAT(other.err, Catch::Contains("machine.backend: the profile was measured with backend 'cpu'"));
  const auto bad = test::run_dtsim(
      "validate " + scenario + " --calibration '" + variant("  ranks: 2", "  ranks: two", "cli") + "'", "validate-bad");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("machine.ranks: 'two' is not a number"));
}

TEST_CASE("a profile of one rank (one GPU) has no links, of two or more, links are required", "[profile]") {
  const std::string links =
      "  links:\n    same_host:\n      - {min_bytes: 0, latency_s: 2e-6, bandwidth_Bps: 1e9}\n"
      "      - {min_bytes: 65536, latency_s: 10e-6, bandwidth_Bps: 4e9}\n";
  std::string text = test::slurp(kData + "profile.yaml");
  REQUIRE(text.find(links) != std::string::npos);
  text.replace(text.find(links), links.size(), "  links: {}\n");
  const std::string dir = test::temp_dir("profile-no-links");
  std::ofstream(dir + "/two.yaml") << text;
  CHECK_THAT(refusal(dir + "/two.yaml"),
             Catch::Contains("fitted.links: needs same_host or cross_host (measured by 2 or more ranks)"));
  const auto one_rank = text.find("  ranks: 2");
  REQUIRE(one_rank != std::string::npos);
  text.replace(one_rank, 10, "  ranks: 1");
  std::ofstream(dir + "/one.yaml") << text;
  const auto p = load_calibration_profile(dir + "/one.yaml");
  CHECK(p->links.empty());
  CHECK(p->link(kSameHost) == nullptr);
  CHECK(p->compute.count("fp32") == 1);
}

TEST_CASE("model.fp8 is refused with a profile that measured no fp8 GEMMs, not costed at fp32's", "[profile]") {
  const auto scenario = [](const char* fp8) {
    return std::string("model:\n  name: transformer\n  dtype: bf16\n  fp8: ") + fp8 +
           "\n  transformer: {layers: 2, hidden: 256, heads: 4, seq_len: 128, vocab: 1024}\n"
           "cluster: {nodes: 1, devices_per_node: 2, device: h100_sxm, calibration: " +
           kData + "profile.yaml}\nstrategy: {kind: hybrid, data: 2}\n";
  };
  CHECK_NOTHROW(load_scenario_text(scenario("none"), "cal.yaml", {}));
  CHECK_THROWS_WITH(load_scenario_text(scenario("delayed"), "cal.yaml", {}), Catch::Contains("cal.yaml") &&
                                                                                 Catch::Contains("model.fp8") &&
                                                                                 Catch::Contains("no fp8 GEMM curve"));
}
