// Fitting oracles: synthetic measurements from known latency/bandwidth (and compute overhead/rate)
// laws, with and without noise, must give those parameters back, with honest residuals.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "calibrate/fit.hpp"
#include "core/base/error.hpp"

using namespace dtsim;
using namespace dtsim::calib;

namespace {

// Sizes 8 B .. 64 MiB, doubling.
std::vector<double> sizes() {
  std::vector<double> out;
  for (double s = 8; s <= 64.0 * 1024 * 1024; s *= 2) out.push_back(s);
  return out;
}

// alpha + S / beta below `brk`, alpha2 + S / beta2 from it; multiplicative lognormal noise.
std::vector<Sample> measure(double alpha, double beta, double brk, double alpha2, double beta2, double sigma,
                            unsigned seed, int repeats = 1) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  std::vector<Sample> out;
  for (double s : sizes()) {
    for (int r = 0; r < repeats; ++r) {
      const double t = s < brk ? alpha + s / beta : alpha2 + s / beta2;
      out.push_back(Sample{s, t * (sigma > 0 ? std::exp(noise(rng)) : 1.0)});
    }
  }
  return out;
}

}  // namespace

TEST_CASE("one latency-bandwidth law is recovered exactly from exact samples", "[fit]") {
  const auto samples = measure(2e-6, 5e9, 1e300, 0, 1, 0, 1);
  const FittedCurve c = fit_curve(samples);
  REQUIRE(c.fit.segments.size() == 1);
  CHECK(c.fit.segments[0].min_x == 0);
  CHECK(c.fit.segments[0].fixed == Approx(2e-6).epsilon(1e-9));
  CHECK(1.0 / c.fit.segments[0].per_unit == Approx(5e9).epsilon(1e-9));
  CHECK(c.residuals.points == static_cast<int>(samples.size()));
  CHECK(c.residuals.max_relative < 1e-9);
}

TEST_CASE("an eager/rendezvous break is found between the sizes either side of it", "[fit]") {
  // Below 64 KiB: 1 us + S / 2 GB/s; from 64 KiB: 10 us + S / 8 GB/s (as MPI's protocol switch).
  const auto samples = measure(1e-6, 2e9, 65536, 10e-6, 8e9, 0, 1);
  const PiecewiseLinear p = fit_piecewise(samples);
  REQUIRE(p.segments.size() == 2);
  CHECK(p.segments[1].min_x > 32768);
  CHECK(p.segments[1].min_x <= 65536);
  CHECK(p.segments[0].fixed == Approx(1e-6).epsilon(1e-9));
  CHECK(1.0 / p.segments[0].per_unit == Approx(2e9).epsilon(1e-9));
  CHECK(p.segments[1].fixed == Approx(10e-6).epsilon(1e-9));
  CHECK(1.0 / p.segments[1].per_unit == Approx(8e9).epsilon(1e-9));
  // The fit reproduces the law on both sides of the break.
  CHECK(p.time(1024) == Approx(1e-6 + 1024 / 2e9).epsilon(1e-9));
  CHECK(p.time(1 << 20) == Approx(10e-6 + (1 << 20) / 8e9).epsilon(1e-9));
}

TEST_CASE("noisy samples give the parameters back within the noise, and residuals near it", "[fit]") {
  const double sigma = 0.03;  // 3 % timing noise, lognormal
  const auto samples = measure(5e-6, 10e9, 1e300, 0, 1, sigma, 42, 5);
  const FittedCurve c = fit_curve(samples);
  REQUIRE(c.fit.segments.size() == 1);  // noise buys no extra segment (BIC)
  CHECK(c.fit.segments[0].fixed == Approx(5e-6).epsilon(0.03));
  CHECK(1.0 / c.fit.segments[0].per_unit == Approx(10e9).epsilon(0.03));
  CHECK(c.residuals.rms_relative > 0.5 * sigma);
  CHECK(c.residuals.rms_relative < 1.5 * sigma);
  CHECK(c.residuals.max_relative >= c.residuals.rms_relative);
}

TEST_CASE("noisy two-regime samples keep both regimes", "[fit]") {
  const auto samples = measure(1e-6, 2e9, 65536, 10e-6, 8e9, 0.02, 7, 5);
  const PiecewiseLinear p = fit_piecewise(samples);
  REQUIRE(p.segments.size() == 2);
  CHECK(p.segments[1].min_x == Approx(std::sqrt(32768.0 * 65536.0)));
  CHECK(1.0 / p.segments[0].per_unit == Approx(2e9).epsilon(0.05));
  CHECK(1.0 / p.segments[1].per_unit == Approx(8e9).epsilon(0.05));
}

TEST_CASE("a compute curve gives its overhead, asymptotic rate and efficiency", "[fit]") {
  // 20 us per op + F / 50 GFLOP/s: efficiency F / (F + 1e6), one half at 1 MFLOP.
  std::vector<Sample> samples;
  for (double f = 1e3; f <= 1e10; f *= 3) samples.push_back(Sample{f, 20e-6 + f / 50e9});
  const FittedCurve c = fit_curve(samples);
  REQUIRE(c.fit.segments.size() == 1);
  CHECK(c.fit.segments[0].fixed == Approx(20e-6).epsilon(1e-9));
  CHECK(1.0 / c.fit.segments[0].per_unit == Approx(50e9).epsilon(1e-9));
  CHECK(efficiency(c.fit, 1e6) == Approx(0.5).epsilon(1e-9));
  CHECK(efficiency(c.fit, 1e9) == Approx(1e9 / (1e9 + 1e6)).epsilon(1e-9));
}

TEST_CASE("impossible laws are clamped to physical parameters", "[fit]") {
  SECTION("time falling with size: a constant") {
    const std::vector<Sample> s{{1, 3e-6}, {10, 2.9e-6}, {100, 2.8e-6}};
    const Segment seg = fit_segment(s, 0);
    CHECK(seg.per_unit > 0);
    CHECK(seg.per_unit < 1e-15);
    CHECK(seg.fixed == Approx(2.9e-6).epsilon(0.02));
  }
  SECTION("a negative intercept: through the origin") {
    const std::vector<Sample> s{{1000, 0.5e-6}, {2000, 1.6e-6}, {3000, 2.7e-6}};
    const Segment seg = fit_segment(s, 0);
    CHECK(seg.fixed == 0);
    CHECK(seg.per_unit > 0);
  }
}

TEST_CASE("fits refuse too few or non-positive samples", "[fit]") {
  CHECK_THROWS_AS(fit_piecewise({Sample{1, 1e-6}}), InputError);
  CHECK_THROWS_AS(fit_piecewise({Sample{1, 1e-6}, Sample{2, 0}}), InputError);
}

TEST_CASE("a segment count whose last segment is flat is passed over for one that grows", "[fit]") {
  // t = 1 us + x / 1 GB/s, but the three largest sizes took as long as the one before them (noise on a
  // busy machine): two segments would fit them exactly with a flat last one, an infinite rate.
  std::vector<Sample> s;
  for (double x = 1024; x <= (1 << 20); x *= 4) s.push_back(Sample{x, 1e-6 + x / 1e9});
  const double plateau = s.back().seconds;
  for (double x = 1 << 21; x <= (1 << 23); x *= 2) s.push_back(Sample{x, plateau});
  const PiecewiseLinear f = calib::fit_piecewise(s, calib::PiecewiseOptions{3, 3});
  CHECK(f.segments.back().per_unit > 1e-15);
}
