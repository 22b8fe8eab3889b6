// Drawing straggler factors: one seeded generator per job, draws in (worker, iteration) order,
// so a seed always gives the same factors.
#include "models/stragglers.hpp"

#include <algorithm>
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
    case Jitter::Hiccup:
      return std::bernoulli_distribution(st.hiccup_probability)(rng) ? st.hiccup_factor : 1.0;
  }
  return 1.0;
}

}  // namespace

void apply_stragglers(const Scenario& s, Plan& plan) {
  if (std::none_of(s.jobs.begin(), s.jobs.end(), [](const JobSpec& j) { return straggles(j.stragglers); })) return;
  const int total = plan.warmup + plan.iterations;
  plan.slowdown.assign(plan.ranks.size(), std::vector<double>(total, 1.0));
  for (size_t j = 0; j < s.jobs.size(); ++j) {
    const StragglerSpec& st = s.jobs[j].stragglers;
    if (!straggles(st)) continue;
    std::mt19937_64 rng(static_cast<unsigned long>(s.run.seed) * 1000003UL + j);
    const auto& workers = plan.jobs[j].workers;
    for (size_t w = 0; w < workers.size(); ++w) {
      const bool slow = std::find(st.slow_workers.begin(), st.slow_workers.end(), static_cast<int>(w)) !=
                        st.slow_workers.end();
      for (int k = 0; k < total; ++k) {
        plan.slowdown[workers[w]][k] = (slow ? st.slow_factor : 1.0) * draw(st, rng);
      }
    }
  }
}

}  // namespace dtsim
