// Dynamic batch shares: known speeds first, then the speeds measured one iteration back.
#include "core/plan/batch_balance.hpp"

namespace dtsim {

BatchBalancer::BatchBalancer(const Plan& plan) : plan_(plan), job_of_(plan.ranks.size(), -1) {
  for (size_t j = 0; j < plan.jobs.size(); ++j) {
    if (!plan.jobs[j].dynamic_batch) continue;
    for (int w : plan.jobs[j].workers) job_of_[w] = static_cast<int>(j);
  }
}

bool BatchBalancer::scales(int rank, const Op& op) const {
  return job_of_[rank] >= 0 && std::holds_alternative<ComputeOp>(op.body) &&
         (op.phase == Phase::Forward || op.phase == Phase::Backward);
}

double BatchBalancer::scale(int rank, int iteration) {
  const int job = job_of_[rank];
  if (job < 0) return 1.0;
  if (iteration == 0) return plan_.batch_scale.empty() ? 1.0 : plan_.batch_scale[rank];
  const auto found = scales_.find({rank, iteration});
  if (found != scales_.end()) return found->second;
  // Decide every worker's share of this iteration at once, from the rates of the one before:
  // rate = share / busy time (samples per second, up to the batch size).
  const auto& workers = plan_.jobs[job].workers;
  std::vector<double> rates;
  double total = 0;
  bool measured = true;
  for (int w : workers) {
    const auto busy = busy_.find({w, iteration - 1});
    measured = measured && busy != busy_.end() && busy->second > 0;
    rates.push_back(measured ? scale(w, iteration - 1) / busy->second : 0.0);
    total += rates.back();
  }
  for (size_t i = 0; i < workers.size(); ++i) {
    const double previous = scale(workers[i], iteration - 1);
    scales_[{workers[i], iteration}] = measured ? static_cast<double>(workers.size()) * rates[i] / total : previous;
  }
  return scales_.at({rank, iteration});
}

void BatchBalancer::record(int rank, int iteration, double seconds) {
  if (job_of_[rank] >= 0) busy_[{rank, iteration}] += seconds;
}

}  // namespace dtsim
