// Fault injection over 20,000 seeds: random failure processes, failure traces, checkpoint intervals,
// detection and restart times, both recoveries and both scopes. Every trial ends (the timeline always
// advances), its time by cause adds up to the horizon, the samples it trained are what its useful time
// at the rates it had gives, and more failures never give more goodput. The failure scenario through
// the CLI under random seeds is tests/cli/fault_injection_cli_test.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "sim/faults/timeline.hpp"

namespace {

using dtsim::faults::JobRate;
using dtsim::faults::TimelineConfig;
using dtsim::faults::TimelineResult;

double total_time(const TimelineResult& r) {
  return r.useful_s + r.checkpoint_s + r.lost_work_s + r.detection_s + r.restart_s + r.idle_s;
}

// A random but valid configuration: times spread over six orders of magnitude.
TimelineConfig random_config(std::mt19937_64& rng) {
  auto log_uniform = [&rng](double lo, double hi) {
    return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng));
  };
  auto coin = [&rng] { return std::uniform_int_distribution<int>(0, 1)(rng) == 1; };
  TimelineConfig c;
  c.horizon_s = log_uniform(3600, 3.6e6);
  c.units = std::uniform_int_distribution<int>(1, 64)(rng);
  c.workers_per_unit = std::uniform_int_distribution<int>(1, 8)(rng);
  c.workers = c.units * c.workers_per_unit;
  c.checkpoint_cost_s = coin() ? log_uniform(1, 600) : 0;
  if (coin()) {
    c.interval_s = log_uniform(60, 86400);
  } else if (coin()) {
    c.interval_iterations = std::uniform_int_distribution<int>(1, 5000)(rng);
  }
  c.detection_s = coin() ? log_uniform(1, 300) : 0;
  c.restart_s = coin() ? log_uniform(1, 900) : 0;
  c.recovery = coin() ? dtsim::Recovery::Elastic : dtsim::Recovery::Restart;
  if (coin()) {
    c.unit_mtbf_s = log_uniform(600, 1e7) * c.units;  // a job MTBF of 10 min to 4 months
  } else {
    const int n = std::uniform_int_distribution<int>(0, 40)(rng);
    for (int i = 0; i < n; ++i) c.trace.push_back(std::uniform_real_distribution<double>(0, c.horizon_s)(rng));
    std::sort(c.trace.begin(), c.trace.end());
  }
  const double per_worker = log_uniform(1, 1000);
  const double iteration = log_uniform(0.01, 30);
  c.rate = [per_worker, iteration](int w) { return JobRate{iteration, per_worker * w}; };
  return c;
}

}  // namespace

TEST_CASE("fault injection: over 20,000 random seeds every trial ends and its time adds up to the horizon") {
  std::mt19937_64 rng(20261126);
  int failures_seen = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const TimelineConfig c = random_config(rng);
    const auto seed = static_cast<std::uint64_t>(trial);
    INFO("trial " << trial << ": horizon " << c.horizon_s << " s, units " << c.units << ", job MTBF "
                  << (c.unit_mtbf_s > 0 ? c.unit_mtbf_s / c.units : 0) << " s, trace " << c.trace.size()
                  << ", interval " << c.interval_s << " s / " << c.interval_iterations << " it, checkpoint "
                  << c.checkpoint_cost_s << " s, detection " << c.detection_s << " s, restart " << c.restart_s << " s, "
                  << (c.recovery == dtsim::Recovery::Elastic ? "elastic" : "restart"));
    const TimelineResult r = dtsim::faults::simulate_timeline(c, seed);
    failures_seen += r.failures > 0;
    CHECK(total_time(r) == Approx(c.horizon_s).epsilon(1e-9));
    for (double part : {r.useful_s, r.checkpoint_s, r.lost_work_s, r.detection_s, r.restart_s, r.idle_s}) {
      CHECK(part >= -1e-9 * c.horizon_s);
    }
    // Samples come from useful time only: at most the full job's rate over it, and under restart
    // (the job always comes back whole) exactly that.
    const double full_rate = c.rate(c.workers).samples_per_s;
    // (Times are sums over up to thousands of segments: they hold to 1e-9 of the horizon.)
    const double slack = full_rate * c.horizon_s * 1e-9;
    CHECK(r.useful_samples <= full_rate * r.useful_s + slack);
    if (c.recovery == dtsim::Recovery::Restart) {
      CHECK(r.useful_samples == Approx(full_rate * r.useful_s).margin(slack));
    }
    CHECK(r.workers_at_end >= 0);
    CHECK(r.workers_at_end <= c.workers);
    // The same trial without failures trains at least as much.
    TimelineConfig calm = c;
    calm.unit_mtbf_s = 0;
    calm.trace.clear();
    const TimelineResult without = dtsim::faults::simulate_timeline(calm, seed);
    CHECK(without.useful_samples >= r.useful_samples * (1 - 1e-9));
  }
  CHECK(failures_seen > 5000);  // the seeds do inject failures
}
