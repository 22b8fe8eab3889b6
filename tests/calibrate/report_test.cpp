// The validation report's arithmetic on hand-made runs: metrics read from metrics.json (means over
// workers), op kinds averaged from trace.json without the warm-up, errors relative to measured.
#include <catch2/catch.hpp>

#include "calibrate/validate.hpp"
#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/calibrated_fixtures.hpp"

using namespace dtsim;
using namespace dtsim::calib;
using nlohmann::json;

namespace {

json metrics(double iteration, double compute, double comm, double exposed, double throughput) {
  json ranks = json::array();
  ranks.push_back({{"role", "worker"}, {"compute_s", compute}, {"comm_s", comm}, {"exposed_comm_s", exposed}});
  ranks.push_back({{"role", "worker"}, {"compute_s", compute * 3}, {"comm_s", comm}, {"exposed_comm_s", exposed}});
  ranks.push_back({{"role", "server"}, {"compute_s", 100.0}, {"comm_s", 100.0}, {"exposed_comm_s", 100.0}});
  return {{"iteration_time_s", {{"mean", iteration}}}, {"throughput_samples_per_s", throughput}, {"per_rank", ranks}};
}

json event(const char* kind, const char* cat, int iteration, double dur_us, double ts = 0) {
  return {{"ph", "X"}, {"cat", cat},   {"dur", dur_us},
          {"ts", ts},  {"name", "op"}, {"args", {{"kind", kind}, {"iteration", iteration}}}};
}

}  // namespace

TEST_CASE("op kinds are mean durations over the measured iterations", "[report]") {
  const json trace = {
      {"traceEvents",
       {event("compute", "forward", 0, 1000), event("compute", "forward", 1, 10), event("compute", "forward", 2, 30),
        event("allreduce", "communication", 1, 4), json{{"ph", "M"}, {"name", "thread_name"}}}}};
  const auto kinds = op_kind_means(trace, 1);
  REQUIRE(kinds.size() == 3);
  CHECK(kinds[0].first == "allreduce");
  CHECK(kinds[0].second == Approx(4e-6));
  CHECK(kinds[1].first == "allreduce after the last rank entered");
  CHECK(kinds[2].first == "compute:forward");
  CHECK(kinds[2].second == Approx(20e-6));  // the warm-up's 1000 us left out
}

TEST_CASE("a collective's time after its last rank entered leaves the skew out", "[report]") {
  // Rank A enters at 0 and ends at 100; rank B enters at 60 and ends at 100: 40 us after the
  // last entry on each, 70 us of op on average.
  const json trace = {
      {"traceEvents",
       {event("allreduce", "communication", 0, 100, 0), event("allreduce", "communication", 0, 40, 60)}}};
  const auto kinds = op_kind_means(trace, 0);
  REQUIRE(kinds.size() == 2);
  CHECK(kinds[0].first == "allreduce");
  CHECK(kinds[0].second == Approx(70e-6));
  CHECK(kinds[1].first == "allreduce after the last rank entered");
  CHECK(kinds[1].second == Approx(40e-6));
}

TEST_CASE("errors are (predicted - measured) / measured, with mean and largest absolute error", "[report]") {
  const json predicted = metrics(1.1, 0.5, 0.2, 0.1, 90);
  const json measured = metrics(1.0, 0.5, 0.25, 0.1, 100);
  const json trace = {{"traceEvents", json::array({event("update", "optimizer", 1, 50)})}};
  const json trace2 = {{"traceEvents", json::array({event("update", "optimizer", 1, 40)})}};
  const ValidationReport r = compare_runs(predicted, measured, trace, trace2, 0);
  REQUIRE(r.metrics.size() == 5);
  CHECK(r.metrics[0].name == "iteration time");
  CHECK(r.metrics[0].error_pct() == Approx(10));
  CHECK(r.metrics[1].measured == Approx(1.0));  // workers only: (0.5 + 1.5) / 2
  CHECK(r.metrics[1].error_pct() == Approx(0));
  CHECK(r.metrics[2].error_pct() == Approx(-20));
  CHECK(r.metrics[3].error_pct() == Approx(0));
  CHECK(r.metrics[4].error_pct() == Approx(-10));
  CHECK(r.mean_abs_error_pct == Approx((10 + 0 + 20 + 0 + 10) / 5.0));
  CHECK(r.max_abs_error_pct == Approx(20));
  REQUIRE(r.op_kinds.size() == 1);
  CHECK(r.op_kinds[0].error_pct() == Approx(25));
  const json j = report_json(r);
  CHECK(j.at("metrics")[2].at("error_pct").get<double>() == Approx(-20));
}

TEST_CASE("several real runs: each measured value is their median, with their spread", "[report]") {
  const json predicted = metrics(1.0, 0.5, 0.2, 0.1, 100);
  const json trace = {{"traceEvents", json::array({event("update", "optimizer", 1, 50)})}};
  std::vector<ValidationReport> runs;
  // Iteration times 0.8, 1.25 and 1.0 (a noisy middle run): the median is 1.0, the spread 45 %.
  for (double it : {0.8, 1.25, 1.0}) {
    const json measured = metrics(it, 0.5, 0.2, 0.1, 100 / it);
    const json mtrace = {{"traceEvents", json::array({event("update", "optimizer", 1, 50 * it)})}};
    runs.push_back(compare_runs(predicted, measured, trace, mtrace, 0));
  }
  const ValidationReport r = median_over_runs(runs);
  CHECK(r.repeats == 3);
  REQUIRE(r.metrics.size() == 5);
  CHECK(r.metrics[0].name == "iteration time");
  CHECK(r.metrics[0].measured == Approx(1.0));
  CHECK(r.metrics[0].error_pct() == Approx(0.0).margin(1e-12));
  CHECK(r.metrics[0].spread_pct() == Approx(45.0));
  CHECK(r.metrics[1].spread_pct() == Approx(0.0));  // compute: the same in every run
  CHECK(r.metrics[4].measured == Approx(100.0));    // throughput: the median of 125, 80 and 100
  REQUIRE(r.op_kinds.size() == 1);
  CHECK(r.op_kinds[0].measured == Approx(50e-6));
  CHECK(r.op_kinds[0].spread_pct() == Approx(45.0));
  // With the noisy runs outvoted, no metric is off.
  CHECK(r.mean_abs_error_pct == Approx(0.0).margin(1e-9));
  // One run alone has no spread.
  CHECK(median_over_runs({runs[1]}).metrics[0].spread_pct() == 0.0);
  CHECK(median_over_runs({runs[1]}).metrics[0].error_pct() == Approx(-20.0));
}

TEST_CASE("the report says what limits the comparison: noisy runs, shared cores, a profile of another rank count",
          "[report]") {
  // A Plan of `scenario` with the hand-made profile (2 cores, one host) edited to `ranks` and `hosts`.
  const auto caveats = [](const ValidationReport& r, const std::string& scenario, int ranks, int hosts) {
    const std::string profile = dtsim::test::edited_profile(
        "caveats",
        {{"  ranks: 2", "  ranks: " + std::to_string(ranks)}, {"  hosts: 1", "  hosts: " + std::to_string(hosts)}});
    const Scenario s = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/bench/validation/" + scenario + ".yaml",
                                     {"cluster.calibration=" + profile});
    return validation_caveats(r, s.cluster, compile_plan(s));
  };
  ValidationReport r;
  r.metrics.push_back(ValidationRow{"iteration time", "s", 1.0, 1.1, {1.0, 1.1, 1.2}});  // spread 0.2 / 1.1
  const auto noisy = caveats(r, "ring_2_400KB", 2, 1);
  REQUIRE(noisy.size() == 1);
  CHECK_THAT(noisy[0], Catch::Contains("the 3 real runs' iteration times spread 18.2 %"));
  r.metrics[0].runs = {1.0, 1.01, 1.02};  // 2 %: steady enough to say nothing
  CHECK(caveats(r, "ring_2_400KB", 2, 1).empty());
  // 4 ranks on the 2 cores the profile was measured on, with 4 ranks: the engines share the cores.
  const auto shared = caveats(r, "ring_4_4MB", 4, 1);
  REQUIRE(shared.size() == 1);
  CHECK_THAT(shared[0], Catch::Contains("4 ranks share 2 cores"));
  // Measured with 2 ranks: the engines cannot know how 4 share them.
  const auto other = caveats(r, "ring_4_4MB", 2, 1);
  REQUIRE(other.size() == 1);
  CHECK_THAT(other[0], Catch::Contains("calibrate with -np 4"));
  // Several hosts, or no more ranks than cores: nothing to say.
  CHECK(caveats(r, "ring_4_4MB", 4, 2).empty());
  CHECK(caveats(r, "ring_2_400KB", 2, 1).empty());
}
