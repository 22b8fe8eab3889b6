// Piecewise-constant profiles: integrating work over them against a brute-force sum, periodic
// repetition, the inline form, and the file format's errors.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/base/error.hpp"
#include "core/base/profile.hpp"

using namespace dtsim;

namespace {

// Work done by `end` from `start`, summed in tiny steps (an independent check of finish()).
double brute_work(const Profile& p, double start, double end) {
  const int steps = 200000;
  const double dt = (end - start) / steps;
  double w = 0;
  for (int i = 0; i < steps; ++i) w += p.factor_at(start + (i + 0.5) * dt) * dt;
  return w;
}

std::string write(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("dtsim_profile_unit_" + name);
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("finish() integrates a piecewise-constant speed exactly") {
  const Profile p = load_profile(write("steps.txt", "# a dip\n1 0.5\n3s 1\n"), 10);
  CHECK(p.times == std::vector<double>{0, 1, 3});
  CHECK(p.factors == std::vector<double>{1, 0.5, 1});
  CHECK(p.finish(0, 0.5) == Approx(0.5));
  CHECK(p.finish(0, 2) == Approx(3));    // 1 s at full speed, 2 s at half: 2 s of work
  CHECK(p.finish(0, 5) == Approx(6));    // and 3 more after t = 3
  CHECK(p.finish(2, 1) == Approx(3.5));  // 0.5 of work in [2, 3), 0.5 after
  CHECK(p.finish(4, 1) == Approx(5));
  CHECK(p.work_between(0, 6) == Approx(5));
  // Factors above 1 (a boost clock) speed work up.
  const Profile boost = load_profile(write("boost.txt", "2 4\n"), 10);
  CHECK(boost.finish(0, 6) == Approx(3));  // 2 s of work by t = 2, then 4 s of work in 1 s
  CHECK(finish_under_minimum({&boost}, 1, 5) == Approx(3));
}

TEST_CASE("periodic profiles repeat, and whole periods are skipped without drift") {
  const Profile p = parse_inline_profile("period=10ms,duty=0.4,factor=0.25", 1);
  CHECK(p.period == 0.01);
  CHECK(p.factor_at(0.003) == 1);
  CHECK(p.factor_at(0.005) == 0.25);
  CHECK(p.factor_at(0.11) == 1);  // 0.11 / 0.01 is 10.999... in floating point
  for (double start : {0.0, 0.0984615, 0.11, 3.2567}) {
    for (double work : {0.001, 0.064, 1.7}) {
      const double end = p.finish(start, work);
      INFO("start " << start << " work " << work);
      CHECK(p.work_between(start, end) == Approx(work).epsilon(1e-9));
      CHECK(brute_work(p, start, end) == Approx(work).epsilon(1e-4));
      CHECK(finish_under_minimum({&p}, start, work) == Approx(end).epsilon(1e-9));
    }
  }
  // An offset shifts the full-rate window.
  const Profile shifted = parse_inline_profile("period=1s,duty=0.5,factor=0.5,offset=0.75s", 1);
  CHECK(shifted.factor_at(0.1) == 1);
  CHECK(shifted.factor_at(0.3) == 0.5);
  CHECK(shifted.factor_at(0.8) == 1);
  CHECK(shifted.work_between(0, 1) == Approx(0.75));
}

TEST_CASE("the slowest of several profiles limits work done under all of them") {
  const Profile a = parse_inline_profile("period=1s,duty=0.5,factor=0.5", 1);
  const Profile b = parse_inline_profile("period=1s,duty=0.5,factor=0.5,offset=0.5s", 1);
  // At every instant one of the two is at half rate: the minimum is a constant 0.5.
  CHECK(finish_under_minimum({&a, &b}, 0.2, 3) == Approx(6.2));
  CHECK(finish_under_minimum({}, 0.2, 3) == Approx(3.2));
}

TEST_CASE("profile files and inline specs are checked line by line") {
  auto error = [](const std::string& text, double max_factor) {
    const std::string path = write("err.txt", text);
    try {
      load_profile(path, max_factor);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("no error");
  };
  CHECK(error("0 1\n2 0\n", 1) ==
        ":2:1: error: '2 0' is not a profile point (use `time factor`, e.g. `10s 0.5`, with "
        "factor a number in (0, 1] and times increasing, or `period 60s`)");
  CHECK(error("0 1\n  5 0.5\n4 1\n", 10).substr(0, 36) == ":3:1: error: '4 1' is not a profile ");
  CHECK(error("0 1 2\n", 10).substr(0, 8) == ":1:1: er");
  CHECK(error("  \n# only comments\n", 10) ==
        ": error: the profile has no points (one `time factor` per line, e.g. `0 0.5`)");
  CHECK(error("0 0.5\nperiod soon\n", 10).substr(0, 8) == ":2:1: er");
  CHECK_THROWS_AS(load_profile("/nonexistent/profile.txt", 1), InputError);
  for (const char* bad : {"period=0s,duty=0.5,factor=0.5", "period=1s,duty=1,factor=0.5", "period=1s,duty=0.5",
                          "period=1s,duty=0.5,factor=2", "period=1s,duty=0.5,factor=0.5,phase=1"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_inline_profile(bad, 1), InputError);
  }
  CHECK(is_inline_profile("period=1s,duty=0.5,factor=0.5"));
  CHECK_FALSE(is_inline_profile("profiles/flaky.txt"));
}

TEST_CASE("a periodic profile integrates over hours of simulated time (no step lost to rounding)") {
  // 30 ms at 1, 20 ms at 0.1, every 50 ms: 0.032 s of work per period, 0.64 per second. At 1e3 s
  // the old step of period x 1e-12 fell below the spacing of doubles and the loop never ended
  // (found by fuzz/fuzz_speed_profile).
  Profile p;
  p.source = "test";
  p.times = {0, 0.03};
  p.factors = {1, 0.1};
  p.period = 0.05;
  for (double t1 : {1.0, 1e3, 3600.0, 1e5}) {
    INFO(t1);
    CHECK(p.work_between(0, t1) == Approx(0.64 * t1).epsilon(1e-9));
    CHECK(p.finish(t1, 0.64) == Approx(t1 + 1).epsilon(1e-9));
  }
}

TEST_CASE("a profile repeating faster than every millisecond is refused, in a file and inline") {
  // fuzz/fuzz_speed_profile's hang: `period 26ns` made 4e10 pieces of 1,000 s.
  const std::string path = write("fast.txt", "#m\n0 1\nperiod 26ns\n");
  try {
    load_profile(path, 1);
    FAIL("a 26 ns period was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(path + ":3:1:") != std::string::npos);
    CHECK_THAT(e.what(), Catch::Contains("shorter than the 1 ms a profile may repeat at (valid: 1ms or more)"));
  }
  CHECK_THROWS_WITH(parse_inline_profile("period=10us,duty=0.5,factor=0.5", 1), Catch::Contains("valid: 1ms or more"));
  const Profile ok = parse_inline_profile("period=1ms,duty=0.5,factor=0.5", 1);
  CHECK(ok.work_between(0, 1e3) == Approx(750).epsilon(1e-9));
}
