// Stale-synchronous gates in the analytical engine (ssp_gates.hpp).
#include "sim/analytical/ssp_gates.hpp"

#include <algorithm>

namespace dtsim::analytical {

void SspGates::arrive(const Event& e, const GateOp& g, int it) {
  const auto& workers = plan_.jobs[g.job].workers;
  Job& job = jobs_[g.job];
  job.progress.resize(workers.size(), 0);
  const auto pos = std::lower_bound(workers.begin(), workers.end(), e.rank) - workers.begin();
  job.progress[pos] = it + 1;
  job.waiting.push_back({e.rank, e.op, it - g.lag + 1, e.time});
  const int slowest = *std::min_element(job.progress.begin(), job.progress.end());
  for (auto w = job.waiting.begin(); w != job.waiting.end();) {
    if (slowest >= w->required) {
      events_.push(e.time, true, w->rank, w->op, w->since);
      w = job.waiting.erase(w);
    } else {
      ++w;
    }
  }
}

}  // namespace dtsim::analytical
