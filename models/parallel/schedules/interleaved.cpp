// Interleaved 1F1B (Narayanan et al. 2021, section 2.2.2; Megatron-LM's
// forward_backward_pipelining_with_interleaving): each rank holds v model chunks (stage i holds
// global stages i, i + p, ...), and the m x v chunk-micro-batches run in groups of p: virtual step
// k is micro-batch (k / (p v)) p + k mod p of chunk (k mod p v) / p (backward: chunk v - 1 minus
// that). Warm-up: (p - i - 1) x 2 + (v - 1) p forwards (all m v when m = p), then one forward and
// one backward, then the remaining backwards. Bubble (p-1)/(v m + p - 1); stage 0 holds
// activations of p v + p - 1 chunk-micro-batches, (1 + (p-1)/(p v)) times 1F1B's (Korthikanti
// et al. 2022, eq. 5). Megatron requires m to be a multiple of p.
#include <algorithm>

#include <fmt/format.h>

#include "models/parallel/schedule.hpp"

namespace dtsim::schedules {
namespace {

PipelineStep virtual_step(int k, bool backward, int stages, int chunks) {
  const int in_group = k % (stages * chunks);
  int chunk = in_group / stages;
  if (backward) chunk = chunks - 1 - chunk;
  return PipelineStep{backward, (k / (stages * chunks)) * stages + k % stages, chunk};
}

}  // namespace

std::string interleaved_refusal(int stages, int micro_batches, int /*chunks*/) {
  if (micro_batches % stages != 0) {
    return fmt::format(
        "the interleaved schedule needs micro-batches per iteration ({}) to be a multiple of the "
        "pipeline stages ({})",
        micro_batches, stages);
  }
  return "";
}

std::vector<PipelineStep> interleaved_order(int stage, int stages, int micro_batches, int chunks) {
  const int total = micro_batches * chunks;
  const int warmup =
      micro_batches == stages ? total : std::min((stages - stage - 1) * 2 + (chunks - 1) * stages, total);
  std::vector<PipelineStep> order;
  for (int k = 0; k < warmup; ++k) order.push_back(virtual_step(k, false, stages, chunks));
  for (int k = 0; k < total - warmup; ++k) {
    order.push_back(virtual_step(k + warmup, false, stages, chunks));
    order.push_back(virtual_step(k, true, stages, chunks));
  }
  for (int k = total - warmup; k < total; ++k) order.push_back(virtual_step(k, true, stages, chunks));
  return order;
}

}  // namespace dtsim::schedules
