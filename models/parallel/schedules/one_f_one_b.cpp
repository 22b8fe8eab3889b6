// 1F1B (PipeDream-Flush, Narayanan et al. 2021): stage i runs min(p - i - 1, m) warm-up
// forwards, then alternates one forward and one backward, then runs the remaining backwards. The
// bubble is GPipe's, (p-1)/(m+p-1), but stage i holds at most min(p - i, m) micro-batches.
#include <algorithm>

#include "models/parallel/schedule.hpp"

namespace dtsim::schedules {

std::vector<PipelineStep> one_f_one_b_order(int stage, int stages, int micro_batches, int /*chunks*/) {
  const int warmup = std::min(stages - stage - 1, micro_batches);
  std::vector<PipelineStep> order;
  int next_forward = 0;
  int next_backward = 0;
  for (int i = 0; i < warmup; ++i) order.push_back({false, next_forward++, 0});
  while (next_forward < micro_batches) {
    order.push_back({false, next_forward++, 0});
    order.push_back({true, next_backward++, 0});
  }
  while (next_backward < micro_batches) order.push_back({true, next_backward++, 0});
  return order;
}

}  // namespace dtsim::schedules
