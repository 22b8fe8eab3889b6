// bench/validation/report.py, which writes docs/VALIDATION.md: on hand-made validate results its mean
// absolute error is the mean of the iteration errors' magnitudes, scenarios without results are
// listed as not run, the steadiness probe's lines and warning follow its numbers, a second pass of the
// real runs is compared with the first (the machine against itself), and no format escape leaks
// into the text.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "tests/support/run_process.hpp"

using namespace dtsim;

namespace {

// A validation.json of one scenario with its iteration error (%) and spread (%).
// The first pass measured 4 ms; `measured` gives the second pass's (OUT/again) with the same prediction.
void write_result(const std::string& out, const std::string& name, int ranks, double error_pct, double spread_pct,
                  double measured = 0.004) {
  const std::string dir = out + "/" + name;
  std::system(("mkdir -p '" + dir + "'").c_str());
  const double predicted = 0.004 * (1 + error_pct / 100);
  error_pct = 100 * (predicted - measured) / measured;
  std::string metrics;
  for (const char* metric : {"iteration time", "compute", "communication", "exposed communication", "throughput"}) {
    metrics += fmt::format(R"({}{{"name": "{}", "predicted": {}, "measured": {}, "error_pct": {}, "spread_pct": {}}})",
                           metrics.empty() ? "" : ", ", metric, predicted, measured, error_pct, spread_pct);
  }
  std::ofstream(dir + "/validation.json") << fmt::format(
      R"({{"scenario": "{}", "ranks": {}, "repeats": 5, "metrics": [{}], "op_kinds": [{{"name": "update", )"
      R"("predicted": 0.001, "measured": 0.002, "error_pct": -50.0}}]}})",
      name, ranks, metrics);
}

void write_steadiness(const std::string& out, const std::string& when, double cv) {
  std::ofstream(out + "/steadiness_" + when + ".json") << fmt::format(
      R"({{"seconds": 10, "flops": 1e7, "cores": [{{"core": 0, "mean_s": 2.3e-4, "min_s": 2.2e-4, "max_s": 2.6e-4, )"
      R"("cv": {}}}], "mean_cv": {}, "mean_spread": 0.1, "worst_spread": 0.2}})",
      cv, cv);
}

// report.py run as run_suite runs it, from the source folder: the Markdown it prints.
std::string report(const std::string& out) {
  const std::string md = test::temp_dir("suite-report-out") + "/VALIDATION.md";
  const std::string cmd = "cd '" + std::string(DTSIM_SOURCE_DIR) + "' && python3 bench/validation/report.py '" + out +
                          "' 42 'bench/validation/run_suite' '0.1 0.1 0.1' '0.2 0.2 0.2' >'" + md + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return test::slurp(md);
}

}  // namespace

TEST_CASE("the suite's report: its mean absolute error, missing scenarios, steadiness", "[calibrate][report]") {
  const std::string out = test::temp_dir("suite-report-in");
  write_result(out, "ring_2_400KB", 2, +4.0, 3.0);
  write_result(out, "ps_2w2s_4MB", 4, -10.0, 20.0);
  SECTION("steady cores") {
    write_steadiness(out, "before", 0.02);
    write_steadiness(out, "after", 0.03);
    const std::string md = report(out);
    CHECK_THAT(md, Catch::Contains("Mean absolute error of iteration time over the suite: 7.0 %** (largest 10.0 %, "
                                   "2 scenarios"));
    CHECK_THAT(md, Catch::Contains("1 of 2 scenarios are predicted within their spread"));
    CHECK_THAT(md, Catch::Contains("| ring_2_400KB | 2 | 4.160 ms | 4.000 ms | 3.0 % | +4.0 % |"));
    CHECK_THAT(md, Catch::Contains("`ring_2_16MB` did not run"));
    CHECK_THAT(md, Catch::Contains("before the suite, second-to-second standard deviation 2.0 %"));
    CHECK_THAT(md, !Catch::Contains("unsteady"));
    CHECK_THAT(md, !Catch::Contains("%%"));
  }
  SECTION("a second pass: the machine against itself") {
    // 4.4 ms and 3.6 ms measured again: +10 % and -10 % against the first pass; the predictions (4.16
    // and 3.6 ms) against them: -5.5 % and 0 %.
    write_result(out + "/again", "ring_2_400KB", 2, +4.0, 3.0, 0.0044);
    write_result(out + "/again", "ps_2w2s_4MB", 4, -10.0, 20.0, 0.0036);
    const std::string md = report(out);
    CHECK_THAT(md, Catch::Contains("| ring_2_400KB | 4.000 ms | 4.400 ms | +10.0 % | -5.5 % |"));
    CHECK_THAT(md, Catch::Contains("| ps_2w2s_4MB | 4.000 ms | 3.600 ms | -10.0 % | +0.0 % |"));
    CHECK_THAT(md, Catch::Contains("The machine against itself: mean absolute difference 10.0 %** (largest 10.0 %, 2 "
                                   "scenarios). The prediction against the second pass: mean absolute error 2.7 %"));
    CHECK_THAT(md, !Catch::Contains("%%"));
  }
  SECTION("no second pass, no section") { CHECK_THAT(report(out), !Catch::Contains("## The machine against itself")); }
  SECTION("unsteady cores") {
    write_steadiness(out, "before", 0.08);
    CHECK_THAT(report(out), Catch::Contains("The cores were unsteady during this run"));
  }
}
