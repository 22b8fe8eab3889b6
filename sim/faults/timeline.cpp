// One trial of a job's timeline under failures: closed-form checkpoint cycles between events.
#include "sim/faults/timeline.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>

namespace dtsim::faults {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

class Trial {
 public:
  Trial(const TimelineConfig& cfg, std::uint64_t seed)
      : cfg_(cfg), rng_(seed), workers_(cfg.workers), units_(cfg.units) {
    set_rate();
  }

  TimelineResult run() {
    const double h = cfg_.horizon_s;
    while (t_ < h) {
      const double tf = next_failure(t_);
      const double end = std::min(tf, h);
      advance(end - t_);
      t_ = end;
      if (t_ >= h) break;
      fail();
    }
    r_.useful_s = h - r_.checkpoint_s - r_.lost_work_s - r_.detection_s - r_.restart_s - r_.idle_s;
    r_.workers_at_end = workers_;
    return r_;
  }

 private:
  void set_rate() {
    rate_ = workers_ > 0 ? cfg_.rate(workers_) : JobRate{};
    tau_ = cfg_.interval_iterations > 0 ? cfg_.interval_iterations * rate_.iteration_s : cfg_.interval_s;
  }

  // The next failure at or after `after`, kept until consume() (exponential gaps are memoryless).
  double next_failure(double after) {
    if (!cfg_.trace.empty()) {
      while (trace_next_ < cfg_.trace.size() && cfg_.trace[trace_next_] < after) ++trace_next_;
      return trace_next_ < cfg_.trace.size() ? cfg_.trace[trace_next_] : kNever;
    }
    if (cfg_.unit_mtbf_s <= 0 || units_ <= 0) return kNever;
    if (pending_ < 0) {
      std::exponential_distribution<double> gap(units_ / cfg_.unit_mtbf_s);
      pending_ = after + gap(rng_);
    }
    return pending_;
  }

  void consume() {
    r_.failures += 1;
    pending_ = -1;
    if (!cfg_.trace.empty()) ++trace_next_;
  }

  // Train for dt: cycles of tau of work then C of checkpoint; p_ is the position in the cycle.
  void advance(double dt) {
    if (workers_ <= 0) {
      r_.idle_s += dt;
      return;
    }
    double work = dt, checkpoint = 0;
    if (tau_ > 0) {
      const double cycle = tau_ + cfg_.checkpoint_cost_s;
      const double total = p_ + dt;
      const double n = std::floor(total / cycle);
      const double rem = total - n * cycle;
      work = n * tau_ + std::min(rem, tau_) - std::min(p_, tau_);
      checkpoint = n * cfg_.checkpoint_cost_s + std::max(rem - tau_, 0.0) - std::max(p_ - tau_, 0.0);
      p_ = rem;
    } else {
      p_ += dt;
    }
    r_.checkpoint_s += checkpoint;
    r_.useful_samples += work * rate_.samples_per_s;
  }

  void fail() {
    consume();
    if (cfg_.recovery == Recovery::Elastic) {
      if (workers_ <= 0) return;
      down(cfg_.detection_s, 0);
      --units_;
      workers_ = std::max(0, workers_ - cfg_.workers_per_unit);
      set_rate();
      return;
    }
    const double lost = tau_ > 0 ? std::min(p_, tau_) : p_;
    r_.lost_work_s += lost;
    r_.useful_samples -= lost * rate_.samples_per_s;
    p_ = 0;
    down(cfg_.detection_s, cfg_.restart_s);
  }

  // Detection then restart; a failure meanwhile starts them again.
  void down(double detection, double restart) {
    while (t_ < cfg_.horizon_s) {
      const double tf = cfg_.recovery == Recovery::Restart ? next_failure(t_) : kNever;
      const double end = std::min({t_ + detection + restart, tf, cfg_.horizon_s});
      const double d = std::min(end - t_, detection);
      r_.detection_s += d;
      r_.restart_s += end - t_ - d;
      t_ = end;
      if (end != tf) return;
      consume();
    }
  }

  const TimelineConfig& cfg_;
  std::mt19937_64 rng_;
  int workers_;
  int units_;
  JobRate rate_;
  double tau_ = 0;
  double t_ = 0, p_ = 0;
  double pending_ = -1;  // the drawn next failure time, -1 = none drawn
  std::size_t trace_next_ = 0;
  TimelineResult r_;
};

}  // namespace

TimelineResult simulate_timeline(const TimelineConfig& cfg, std::uint64_t seed) { return Trial(cfg, seed).run(); }

TimelineResult simulate_trials(const TimelineConfig& cfg, std::uint64_t seed, std::uint64_t stream, int trials) {
  TimelineResult mean;
  for (int i = 0; i < trials; ++i) {
    std::seed_seq seq{seed, stream, static_cast<std::uint64_t>(i)};
    std::array<std::uint32_t, 2> words{};
    seq.generate(words.begin(), words.end());
    const TimelineResult r = simulate_timeline(cfg, (std::uint64_t{words[0]} << 32) | words[1]);
    mean.useful_samples += r.useful_samples / trials;
    mean.failures += r.failures / trials;
    mean.useful_s += r.useful_s / trials;
    mean.checkpoint_s += r.checkpoint_s / trials;
    mean.lost_work_s += r.lost_work_s / trials;
    mean.detection_s += r.detection_s / trials;
    mean.restart_s += r.restart_s / trials;
    mean.idle_s += r.idle_s / trials;
    mean.workers_at_end += r.workers_at_end / trials;
  }
  return mean;
}

}  // namespace dtsim::faults
