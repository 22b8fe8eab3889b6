// The Amdahl and Gustafson fits recover p exactly from synthetic data; speedup, efficiency,
// Karp-Flatt and the threshold point follow the documented convention.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "sim/sweep/scaling_fit.hpp"

using namespace dtsim;

TEST_CASE("Amdahl fit recovers p exactly from synthetic data") {
  for (double p : {0.5, 0.9, 0.99, 0.999}) {
    std::vector<double> n{1, 2, 4, 8, 16, 64, 256}, s;
    for (double x : n) s.push_back(sweep::amdahl_speedup(p, x));
    const sweep::LawFit fit = sweep::fit_amdahl(n, s);
    CHECK(fit.p == Approx(p).epsilon(1e-12));
    CHECK(fit.r2 == Approx(1.0).epsilon(1e-12));
    for (double r : fit.residuals) CHECK(std::abs(r) < 1e-9);
  }
}

TEST_CASE("Gustafson fit recovers p exactly from synthetic data") {
  for (double p : {0.3, 0.8, 0.95}) {
    std::vector<double> n{1, 3, 9, 27, 81}, s;
    for (double x : n) s.push_back(sweep::gustafson_speedup(p, x));
    const sweep::LawFit fit = sweep::fit_gustafson(n, s);
    CHECK(fit.p == Approx(p).epsilon(1e-12));
    CHECK(fit.r2 == Approx(1.0).epsilon(1e-12));
  }
}

TEST_CASE("scaling analysis: speedup relative to the smallest point and the efficiency threshold") {
  // Amdahl p = 0.9 measured as throughput; the smallest point has 2 workers.
  std::vector<sweep::ScalingPoint> pts;
  for (int n : {16, 2, 4, 8, 32}) {
    sweep::ScalingPoint sp;
    sp.workers = n;
    sp.throughput_samples_per_s = 100 * sweep::amdahl_speedup(0.9, n);
    sp.iteration_time_s = 1 / sp.throughput_samples_per_s;
    pts.push_back(sp);
  }
  const sweep::ScalingReport r = sweep::analyze_scaling(pts, 0.8, sweep::ScalingMode::Strong);
  REQUIRE(r.points.size() == 5);
  CHECK(r.points.front().workers == 2);
  CHECK(r.points.front().speedup == Approx(2.0));  // the baseline's speedup is its worker count
  CHECK(r.points[1].speedup == Approx(sweep::amdahl_speedup(0.9, 4) / sweep::amdahl_speedup(0.9, 2) * 2));
  CHECK(r.points.front().karp_flatt.value() == Approx(0).margin(1e-12));
  for (const auto& p : r.points) CHECK(p.efficiency == Approx(p.speedup / p.workers));
  REQUIRE(r.efficiency_below_threshold_at.has_value());
  // The first point whose efficiency is under 0.8.
  for (const auto& p : r.points) {
    if (p.workers < *r.efficiency_below_threshold_at) CHECK(p.efficiency >= 0.8);
    if (p.workers == *r.efficiency_below_threshold_at) CHECK(p.efficiency < 0.8);
  }
  const auto j = scaling_json(r, "x", "strong", "cluster.nodes");
  CHECK(j["schema_version"] == 2);
  CHECK(j["points"].size() == 5);
  CHECK(j["amdahl"]["residuals"].size() == 5);
  CHECK(j["amdahl"]["max_speedup"].is_number());
  CHECK(j["gustafson"]["r2"].is_number());
  CHECK(j["efficiency_below_threshold_at"] == *r.efficiency_below_threshold_at);
}

TEST_CASE("Karp-Flatt is null at one worker and equals the serial fraction for Amdahl data") {
  std::vector<sweep::ScalingPoint> pts;
  for (int n : {1, 4, 16}) {
    sweep::ScalingPoint sp;
    sp.workers = n;
    sp.throughput_samples_per_s = sweep::amdahl_speedup(0.95, n);
    pts.push_back(sp);
  }
  const sweep::ScalingReport r = sweep::analyze_scaling(pts, 0.8, sweep::ScalingMode::Strong);
  CHECK_FALSE(r.points[0].karp_flatt.has_value());
  CHECK(r.points[1].karp_flatt.value() == Approx(0.05));
  CHECK(r.points[2].karp_flatt.value() == Approx(0.05));
  REQUIRE(r.amdahl);
  CHECK(r.amdahl->p == Approx(0.95));
  CHECK(r.amdahl_max_speedup().value() == Approx(20));
  CHECK(scaling_json(r, "x", "strong", "k")["points"][0]["karp_flatt"].is_null());
}

TEST_CASE("weak scaling fits Gustafson's law and not Amdahl's, which bounds a fixed problem") {
  // Gustafson data (p = 0.9): weak scaling's law, whose speedup grows without the bound Amdahl's fit would put on it.
  std::vector<sweep::ScalingPoint> pts;
  for (int n : {1, 2, 4, 8, 16, 32}) {
    sweep::ScalingPoint sp;
    sp.workers = n;
    sp.throughput_samples_per_s = 10 * sweep::gustafson_speedup(0.9, n);
    pts.push_back(sp);
  }
  const sweep::ScalingReport weak = sweep::analyze_scaling(pts, 0.8, sweep::ScalingMode::Weak);
  CHECK_FALSE(weak.amdahl.has_value());
  CHECK_FALSE(weak.amdahl_max_speedup().has_value());
  CHECK(weak.gustafson.p == Approx(0.9));
  const auto j = scaling_json(weak, "x", "weak", "cluster.nodes");
  CHECK(j["amdahl"].is_null());
  CHECK(j["gustafson"]["p"].get<double>() == Approx(0.9));
  // The same points called a strong sweep: Amdahl fitted, Gustafson's fit the same.
  const sweep::ScalingReport strong = sweep::analyze_scaling(pts, 0.8, sweep::ScalingMode::Strong);
  CHECK(strong.amdahl.has_value());
  CHECK(strong.gustafson.p == Approx(weak.gustafson.p));
}
