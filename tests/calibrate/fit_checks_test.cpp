// calibrate's fit checks (calibrate/fit_checks.hpp) on synthetic measurements whose truth is known:
// a benchmark that did no work, a fit past what its samples reached, rates past the machine's
// ceilings, a noisy curve; refused curves leave the profile, every verdict is written and read back.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

#include "calibrate/calibrate.hpp"
#include "calibrate/fit.hpp"
#include "calibrate/fit_checks.hpp"
#include "calibrate/validate.hpp"
#include "core/base/error.hpp"
#include "core/calibration/profile_reader.hpp"
#include "core/calibration/profile_writer.hpp"
#include "tests/support/run_process.hpp"

using namespace dtsim;

namespace {

// Clean measurements of a 2-rank host: exchanges at 10 GB/s, ring rounds at 5 GB/s, GEMMs at
// 50 GFLOP/s, an SGD step and a collective buffer at 30 GB/s, two compression kernels at 2 and
// 9 GB/s. Every curve passes.
calib::Measurements clean() {
  calib::Measurements m;
  for (double s = 8; s <= 1 << 24; s *= 4) m.exchange[kSameHost].push_back(Sample{s, 2e-6 + s / 10e9});
  for (double s = 1024; s <= 1 << 26; s *= 2) {
    const double round = 3e-6 + s / 2 / 5e9;  // a round of S / 2 bytes, 2 of them on 2 ranks
    m.collectives.push_back(
        CollectiveSample{"allreduce", "ring", 2, s, 2 * round, s / (2 * round), s / (2 * round), 0});
  }
  for (double f = 1e4; f <= 1e9; f *= 10) m.gemm["fp32"].push_back(Sample{f, 1e-6 + f / 50e9});
  for (double b = 1 << 17; b <= 1 << 28; b *= 4) {
    m.memory.push_back(Sample{b, 1e-6 + b / 30e9});
    m.collective_buffer.push_back(Sample{b, 1e-6 + b / 30e9});
  }
  for (double b = 1 << 16; b <= 1 << 26; b *= 4) {
    m.compression["fp16"].push_back(Sample{b, b / 2e9});
    m.compression["fp16_decompress"].push_back(Sample{b, b / 9e9});
  }
  return m;
}

CalibrationProfile fit(calib::Measurements m, double fp32_peak = 200e9) {
  calib::FitCeilings ceilings;
  ceilings.compute_peak["fp32"] = fp32_peak;
  return calib::fit_profile(calib::this_machine(Backend::Cpu, 2, 1, true), std::move(m), ceilings);
}

const FitCheck& check_of(const CalibrationProfile& p, const std::string& group, const std::string& name) {
  for (const FitCheck& c : p.fit_checks) {
    if (c.group == group && c.name == name) return c;
  }
  FAIL("no check of " << group << " " << name);
  throw;
}

}  // namespace

TEST_CASE("clean measurements: every curve is checked and passes", "[fit_checks]") {
  const CalibrationProfile p = fit(clean());
  // links same_host (rounds) and same_host_p2p (exchanges), compute fp32, memory sgd_step and
  // collective_buffer, two compression kernels.
  REQUIRE(p.fit_checks.size() == 7);
  for (const FitCheck& c : p.fit_checks) {
    INFO(c.group << " " << c.name << ": " << c.reason);
    CHECK(c.verdict == FitVerdict::Ok);
  }
  // The rounds' link against 1.5 x the exchanges' best (10 GB/s at 16 MiB, less its latency).
  CHECK_THAT(check_of(p, "links", kSameHost).reason, Catch::Contains("5 GB/s"));
  CHECK_THAT(check_of(p, "links", kSameHost).reason, Catch::Contains("1.5 x the exchanges' best on this host"));
  CHECK_THAT(check_of(p, "compute", "fp32").reason, Catch::Contains("ceiling 200 GFLOP/s (the rank's peak)"));
  CHECK(p.compression.size() == 2);
}

TEST_CASE("a benchmark that did no work is refused and left out", "[fit_checks]") {
  calib::Measurements m = clean();
  // int8's decompress as calibrate timed it before: a call that returned at once, 30 ns at every size.
  for (double b = 1 << 16; b <= 1 << 26; b *= 4) m.compression["int8_decompress"].push_back(Sample{b, 3e-8});
  const CalibrationProfile p = fit(std::move(m));
  const FitCheck& c = check_of(p, "compression", "int8_decompress");
  CHECK(c.verdict == FitVerdict::Refused);
  CHECK_THAT(c.reason, Catch::Contains("time does not grow with size"));
  CHECK(p.compression.count("int8_decompress") == 0);
  CHECK(p.compression.count("fp16") == 1);
}

TEST_CASE("a rate no sample came near is refused", "[fit_checks]") {
  calib::Measurements m = clean();
  // Every size latency-bound: 1 ms + x / 1 TB/s up to 4 KiB. The fit's 1 TB/s is 250 times what any
  // sample reached (4 MB/s).
  m.exchange["cross_host"] = {};
  for (double s = 8; s <= 4096; s *= 2) m.exchange["cross_host"].push_back(Sample{s, 1e-3 + s / 1e12});
  const CalibrationProfile p = fit(std::move(m));
  const FitCheck& c = check_of(p, "links", kCrossHost);
  CHECK(c.verdict == FitVerdict::Refused);
  CHECK_THAT(c.reason, Catch::Contains("more than 2 x the best any sample reached"));
  CHECK(p.link(kCrossHost) == nullptr);
  CHECK(p.link(kSameHost) != nullptr);
}

TEST_CASE("rates past the machine's ceilings are refused", "[fit_checks]") {
  SECTION("a compression kernel 10 times faster than the fastest streaming loop") {
    calib::Measurements m = clean();
    for (double b = 1 << 16; b <= 1 << 26; b *= 4) m.compression["sign"].push_back(Sample{b, b / 300e9});
    const CalibrationProfile p = fit(std::move(m));
    const FitCheck& c = check_of(p, "compression", "sign");
    CHECK(c.verdict == FitVerdict::Refused);
    CHECK_THAT(c.reason, Catch::Contains("300 GB/s measured, past the ceiling of"));
    CHECK_THAT(c.reason, Catch::Contains("(8 x the fastest streaming loop measured)"));
    CHECK(p.compression.count("sign") == 0);
  }
  SECTION("ring rounds faster than the exchanges they are made of") {
    calib::Measurements m = clean();
    for (CollectiveSample& c : m.collectives) c.seconds /= 4;  // rounds at 20 GB/s, exchanges at 10
    const CalibrationProfile p = fit(std::move(m));
    CHECK(check_of(p, "links", kSameHost).verdict == FitVerdict::Refused);
    CHECK_THAT(check_of(p, "links", kSameHost).reason,
               Catch::EndsWith("fitted to the two-way exchanges instead (below)"));
    // The link falls back to the exchanges (same_host_p2p's fit), with its own verdict last.
    REQUIRE(p.link(kSameHost) != nullptr);
    REQUIRE(p.link(kSameHostP2p) != nullptr);
    CHECK(p.link(kSameHost)->fit.segments.back().per_unit == p.link(kSameHostP2p)->fit.segments.back().per_unit);
    const auto last = std::find_if(p.fit_checks.rbegin(), p.fit_checks.rend(),
                                   [](const FitCheck& c) { return c.group == "links" && c.name == kSameHost; });
    REQUIRE(last != p.fit_checks.rend());
    CHECK(last->verdict == FitVerdict::Ok);
    CHECK_THAT(last->reason, Catch::StartsWith("from the two-way exchanges: "));
  }
  SECTION("a trace's memory curve past the device's memory bandwidth, beyond its L2 (--from-trace)") {
    // Ops of up to 32 MB stream from a 50 MB L2 at 10 TB/s: above HBM's 4.8 TB/s, and allowed. From 64 MB on
    // they come from HBM: at 3 TB/s the curve passes; at 6 TB/s, past the data sheet, it is refused.
    for (const double large_rate : {3e12, 6e12}) {
      std::vector<Sample> s;
      for (double b = 1 << 20; b <= 32 << 20; b *= 2) s.push_back(Sample{b, 2e-6 + b / 10e12});
      for (double b = 64 << 20; b <= 4096.0 * (1 << 20); b *= 2) s.push_back(Sample{b, 2e-6 + b / large_rate});
      CalibrationProfile p;
      p.memory["sgd_step"] = calib::fit_curve(s, calib::PiecewiseOptions{3, 3});
      calib::FitCeilings ceilings;
      ceilings.memory_peak = 4.8e12;
      ceilings.memory_past_bytes = 50 << 20;
      ceilings.memory_source = "the zoo's h200 memory bandwidth, past its L2";
      calib::check_fits(p, ceilings, false);
      const FitCheck& c = check_of(p, "memory", "sgd_step");
      INFO(c.reason);
      CHECK(c.verdict == (large_rate < 4.8e12 ? FitVerdict::Ok : FitVerdict::Refused));
      CHECK_THAT(c.reason, Catch::Contains("4800 GB/s (the zoo's h200 memory bandwidth, past its L2)"));
      CHECK(p.memory.count("sgd_step") == (large_rate < 4.8e12 ? 1u : 0u));
    }
  }
  SECTION("GEMMs past the rank's peak leave no profile to write") {
    try {
      fit(clean(), 20e9);
      FAIL("a refused fp32 curve was written");
    } catch (const RuntimeError& e) {
      CHECK_THAT(e.what(), Catch::Contains("the compute curve fp32 is refused (50 GFLOP/s"));
      CHECK_THAT(e.what(), Catch::Contains("past the ceiling of 20 GFLOP/s (the rank's peak)"));
      CHECK_THAT(e.what(), Catch::Contains("no profile written"));
    }
  }
}

TEST_CASE("a noisy curve is marked and kept, and every verdict survives the file", "[fit_checks]") {
  calib::Measurements m = clean();
  // top-k's selection: one line through times that alternate 1x and 3x misses them by more than 20 %.
  int i = 0;
  for (double b = 1 << 16; b <= 1 << 26; b *= 2)
    m.compression["topk"].push_back(Sample{b, (i++ % 2 ? 3 : 1) * b / 1e9});
  CalibrationProfile p = fit(std::move(m));
  const FitCheck& c = check_of(p, "compression", "topk");
  CHECK(c.verdict == FitVerdict::Marked);
  CHECK_THAT(c.reason, Catch::Contains("past the 20 % bound"));
  CHECK(p.compression.count("topk") == 1);

  const std::string path = test::temp_dir("fit-checks") + "/profile.yaml";
  std::ofstream(path) << profile_yaml(p);
  const auto q = load_calibration_profile(path, Backend::Cpu);
  REQUIRE(q->fit_checks.size() == p.fit_checks.size());
  for (size_t k = 0; k < p.fit_checks.size(); ++k) {
    CHECK(q->fit_checks[k].group == p.fit_checks[k].group);
    CHECK(q->fit_checks[k].name == p.fit_checks[k].name);
    CHECK(q->fit_checks[k].verdict == p.fit_checks[k].verdict);
    CHECK(q->fit_checks[k].reason == p.fit_checks[k].reason);
  }
}

TEST_CASE("this cpu's peak bounds what its GEMMs reached", "[fit_checks]") {
  // One core at /proc/cpuinfo's clock: positive here, and at least 16 FLOPs a cycle at 1 GHz.
  const double peak = calib::cpu_compute_peak(1);
  CHECK(peak >= 16 * 1e9 * 1.5 * 0.5);  // any clock above 0.5 GHz
  CHECK(calib::cpu_compute_peak(4) == Approx(4 * peak));
  CHECK(calib::cpu_compute_peak(0) == Approx(peak));
}

TEST_CASE("validate names the profile's marked and refused curves, or that it predates the checks", "[fit_checks]") {
  calib::Measurements m = clean();
  for (double b = 1 << 16; b <= 1 << 26; b *= 4) m.compression["int8_decompress"].push_back(Sample{b, 3e-8});
  const std::vector<std::string> cautions = calib::profile_cautions(fit(std::move(m)));
  REQUIRE(cautions.size() == 1);
  CHECK_THAT(cautions[0], Catch::StartsWith("the profile's compression curve int8_decompress is refused: time does "
                                            "not grow with size"));
  CHECK_THAT(cautions[0], Catch::EndsWith("(left out: the model's cost stands in for it)"));
  CHECK(calib::profile_cautions(fit(clean())).empty());

  const auto old =
      load_calibration_profile(std::string(DTSIM_SOURCE_DIR) + "/tests/calibrate/data/profile.yaml", Backend::Cpu);
  REQUIRE(old->fit_checks.empty());
  const std::vector<std::string> before = calib::profile_cautions(*old);
  REQUIRE(before.size() == 1);
  CHECK_THAT(before[0], Catch::Contains("was written before dtsim calibrate checked its fits"));
}

TEST_CASE("a failed self-check is kept in the profile and named first by validate", "[fit_checks]") {
  CalibrationProfile p = fit(clean());
  p.self_check = SelfCheck{"a job", 10e-3, 13e-3};  // predicted 30 % slow
  CHECK(p.self_check->error_pct() == Approx(30));
  CHECK(!p.self_check->passed());
  CHECK(SelfCheck{"a job", 10e-3, 10.9e-3}.passed());
  CHECK(!SelfCheck{"a job", 10e-3, 8.9e-3}.passed());

  const std::string path = test::temp_dir("self-check") + "/profile.yaml";
  std::ofstream(path) << profile_yaml(p);
  const auto q = load_calibration_profile(path, Backend::Cpu);
  REQUIRE(q->self_check);
  CHECK(q->self_check->job == "a job");
  CHECK(q->self_check->predicted_s == Approx(13e-3));
  const std::vector<std::string> cautions = calib::profile_cautions(*q);
  REQUIRE(!cautions.empty());
  CHECK_THAT(cautions.front(),
             Catch::StartsWith("the profile's self-check failed: calibrate ran its job (a job) for "
                               "real in 10 ms and predicted 13 ms with the profile (+30.0 %, past 10 %)"));
}
