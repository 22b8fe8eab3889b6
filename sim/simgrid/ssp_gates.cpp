// SSP gates: each job's workers' gate counts under one mutex and condition variable.
#include "sim/simgrid/ssp_gates.hpp"

#include <algorithm>

namespace sg4 = simgrid::s4u;

namespace dtsim::sg {

void SspGates::create() {
  for (size_t j = 0; j < plan_.jobs.size(); ++j) {
    Job& st = jobs_[static_cast<int>(j)];
    st.progress.assign(plan_.jobs[j].workers.size(), 0);
    st.mutex = sg4::Mutex::create();
    st.changed = sg4::ConditionVariable::create();
  }
}

void SspGates::pass(int rank, const GateOp& g, int it) {
  const auto& workers = plan_.jobs[g.job].workers;
  Job& st = jobs_[g.job];
  st.progress[std::lower_bound(workers.begin(), workers.end(), rank) - workers.begin()] = it + 1;
  st.changed->notify_all();
  std::unique_lock lock(*st.mutex);
  while (*std::min_element(st.progress.begin(), st.progress.end()) < it - g.lag + 1) st.changed->wait(lock);
}

}  // namespace dtsim::sg
