// GPipe (Huang et al. 2019): every micro-batch's forward, then every backward, in micro-batch
// order. A stage holds all m micro-batches' activations before its first backward.
// Iteration with p equal stages (forward f, backward b per micro-batch) and free communication:
// (m + p - 1)(f + b); bubble (p-1)/(m+p-1).
#include "models/parallel/schedule.hpp"

namespace dtsim::schedules {

std::vector<PipelineStep> gpipe_order(int /*stage*/, int /*stages*/, int micro_batches, int /*chunks*/) {
  std::vector<PipelineStep> order;
  for (int i = 0; i < micro_batches; ++i) order.push_back({false, i, 0});
  for (int i = 0; i < micro_batches; ++i) order.push_back({true, i, 0});
  return order;
}

}  // namespace dtsim::schedules
