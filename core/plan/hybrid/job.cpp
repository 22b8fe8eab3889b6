// A hybrid job as a whole (job.hpp).
#include "core/plan/hybrid/job.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/plan/worker.hpp"
#include "models/parallel/layout.hpp"

namespace dtsim {

double hybrid_bucket_bytes(const JobSpec& job, const HybridSpec& layout) {
  if (job.strategy.bucket_size_given) return job.strategy.bucket_size;
  return std::max(40e6, 1e6 * layout.data) * dtype_bytes(job.model.grad_dtype);
}

HybridSpec job_layout(const Scenario& s, const JobSpec& job) {
  return resolve_layout(job.strategy.hybrid, job.devices(s.cluster));
}

ShardShape job_shard_shape(const JobSpec& job, const HybridSpec& layout) {
  ShardShape sh = shard_shape(layout, dtype_bytes(job.model.dtype));
  sh.autocast = job.framework.mixed_precision == MixedPrecision::Autocast;
  sh.eager_attention = job.framework.attention_kernels == AttentionKernels::Eager;
  sh.micro_batches = layout.micro_batches();
  sh.fp8 = job.model.fp8;
  sh.tp_comm_overlap = job.framework.tp_comm_overlap;
  sh.pointwise = job.framework.pointwise_kernels;
  sh.norm_kernel = job.framework.norm_kernel;
  return sh;
}

bool tp_comm_overlap_applies(const JobSpec& job) {
  const HybridSpec& h = job.strategy.hybrid;
  return job.framework.tp_comm_overlap && job.strategy.kind == StrategyKind::Hybrid && h.tensor > 1 &&
         h.sequence_parallel;
}

double param_gather_bytes(const JobSpec& job, double params, double fp8) {
  const double bytes = dtype_bytes(job.model.dtype);
  if (job.model.fp8 == Fp8Scaling::None || !job.framework.fp8_param_gather) return params * bytes;
  return fp8 * dtype_bytes(Dtype::Fp8) + (params - fp8) * bytes;
}

std::vector<StageMemory> job_memory(const Scenario& s, const JobSpec& job) {
  return layout_memory(job, job_layout(s, job));
}

std::vector<StageMemory> layout_memory(const JobSpec& job, const HybridSpec& layout) {
  MemoryInputs in;
  in.model = job.model.transformer;
  in.layout = layout;
  in.dtype = job.model.dtype;
  in.grad_dtype = job.model.grad_dtype;
  in.autocast = job.framework.mixed_precision == MixedPrecision::Autocast;
  in.optimizer_states = static_cast<int>(optimizer_state_copies(job.model.optimizer));
  in.bucket_bytes = hybrid_bucket_bytes(job, in.layout);
  return stage_memory(in);
}

std::optional<std::string> memory_overflow(const Scenario& s, size_t index) {
  const JobSpec& job = s.jobs[index];
  if (job.strategy.kind != StrategyKind::Hybrid) return std::nullopt;
  const HybridSpec layout = job_layout(s, job);
  const HybridLayout ranks(layout);
  const std::vector<StageMemory> stages = job_memory(s, job);
  const int per_node = job.local_count(s.cluster);
  for (int r = 0; r < ranks.size(); ++r) {
    const StageMemory& m = stages[static_cast<size_t>(ranks.stage(r))];
    const DeviceSpec& device = s.cluster.device_at(job.placement.first_node + r / per_node);
    if (m.bytes.total() <= device.mem_capacity) continue;
    const auto gb = [](double bytes) { return fmt::format("{:.1f} GB", bytes / 1e9); };
    return fmt::format(
        "job {}: rank {} (pipeline stage {}) needs {} but its {} holds {} (parameters {}, gradients {}, optimizer {}, "
        "activations {} for {} micro-batch(es) in flight, communication {}); more tensor or pipeline parallelism, "
        "strategy.zero, strategy.recompute or a smaller strategy.micro_batch lower it",
        job.name, r, m.stage, gb(m.bytes.total()), device.name, gb(device.mem_capacity), gb(m.bytes.parameters),
        gb(m.bytes.gradients), gb(m.bytes.optimizer), gb(m.bytes.activations), m.micro_batches_in_flight,
        gb(m.bytes.communication));
  }
  return std::nullopt;
}

}  // namespace dtsim
