// Drawing straggler factors: one seeded generator per job, draws in (worker, iteration) order,
// so a seed always gives the same factors. Also attaches speed profiles and the first iteration's
// dynamic batch shares.
#include "core/plan/stragglers.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace dtsim {
namespace {

bool straggles(const StragglerSpec& st) {
  return st.jitter != Jitter::None || (!st.slow_workers.empty() && st.slow_factor != 1.0);
}

double draw(const StragglerSpec& st, std::mt19937_64& rng) {
  switch (st.jitter) {
    case Jitter::None: return 1.0;
    case Jitter::Lognormal: return std::lognormal_distribution<double>(0.0, st.sigma)(rng);
    case Jitter::Exponential:
      return st.tail_mean > 0 ? 1.0 + std::exponential_distribution<double>(1.0 / st.tail_mean)(rng) : 1.0;
    case Jitter::Hiccup: return std::bernoulli_distribution(st.hiccup_probability)(rng) ? st.hiccup_factor : 1.0;
  }
  return 1.0;
}

bool is_listed(const std::vector<int>& list, int w) { return std::find(list.begin(), list.end(), w) != list.end(); }

// Speed profiles: one Plan profile per job that has one, on its listed workers (all when none listed).
void apply_speed_profiles(const Scenario& s, Plan& plan) {
  for (size_t j = 0; j < s.jobs.size(); ++j) {
    const StragglerSpec& st = s.jobs[j].stragglers;
    if (st.speed_profile.times.empty()) continue;
    if (plan.rank_profile.empty()) plan.rank_profile.assign(plan.ranks.size(), -1);
    const int index = static_cast<int>(plan.profiles.size());
    plan.profiles.push_back(st.speed_profile);
    const auto& workers = plan.jobs[j].workers;
    for (size_t w = 0; w < workers.size(); ++w) {
      if (st.profile_workers.empty() || is_listed(st.profile_workers, static_cast<int>(w))) {
        plan.rank_profile[workers[w]] = index;
      }
    }
  }
}

// Dynamic batch sizing, first iteration: shares from what is known before running (each device's
// peak x efficiency for the job's dtype, the fixed slow factor). Later iterations measure.
void apply_batch_shares(const Scenario& s, Plan& plan) {
  for (size_t j = 0; j < s.jobs.size(); ++j) {
    const JobSpec& job = s.jobs[j];
    plan.jobs[j].dynamic_batch = job.strategy.dynamic_batch;
    if (!job.strategy.dynamic_batch) continue;
    if (plan.batch_scale.empty()) plan.batch_scale.assign(plan.ranks.size(), 1.0);
    const auto& workers = plan.jobs[j].workers;
    std::vector<double> rates;
    for (size_t w = 0; w < workers.size(); ++w) {
      const int node = plan.ranks[workers[w]].where.node;
      const bool slow = is_listed(job.stragglers.slow_workers, static_cast<int>(w));
      rates.push_back(s.cluster.device_at(node).peak(job.model.dtype) * s.cluster.efficiency_at(node) /
                      (slow ? job.stragglers.slow_factor : 1.0));
    }
    const double total = std::accumulate(rates.begin(), rates.end(), 0.0);
    for (size_t w = 0; w < workers.size(); ++w) {
      plan.batch_scale[workers[w]] = static_cast<double>(workers.size()) * rates[w] / total;
    }
  }
}

}  // namespace

void apply_stragglers(const Scenario& s, Plan& plan) {
  apply_speed_profiles(s, plan);
  apply_batch_shares(s, plan);
  if (std::none_of(s.jobs.begin(), s.jobs.end(), [](const JobSpec& j) { return straggles(j.stragglers); })) return;
  const int total = plan.warmup + plan.iterations;
  plan.slowdown.assign(plan.ranks.size(), std::vector<double>(total, 1.0));
  for (size_t j = 0; j < s.jobs.size(); ++j) {
    const StragglerSpec& st = s.jobs[j].stragglers;
    if (!straggles(st)) continue;
    std::mt19937_64 rng(static_cast<unsigned long>(s.run.seed) * 1000003UL + j);
    const auto& workers = plan.jobs[j].workers;
    for (size_t w = 0; w < workers.size(); ++w) {
      const bool slow = is_listed(st.slow_workers, static_cast<int>(w));
      for (int k = 0; k < total; ++k) {
        plan.slowdown[workers[w]][k] = (slow ? st.slow_factor : 1.0) * draw(st, rng);
      }
    }
  }
}

}  // namespace dtsim
