// A hybrid job as a whole, before any plan: its layout with the data-parallel size resolved, the
// size of its data-parallel buckets, the memory each stage's ranks need, and whether it fits.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/scenario/scenario.hpp"
#include "models/parallel/memory.hpp"
#include "models/parallel/transformer_ops.hpp"

namespace dtsim {

// The gradient bytes of one data-parallel bucket: strategy.allreduce.bucket_size when given, else
// Megatron-core's default (DistributedDataParallelConfig.bucket_size: max(40,000,000, 1,000,000 x
// data-parallel size) parameters, "larger DP sizes need larger buckets to ensure collectives do not
// become latency-bound") of gradients in model.grad_dtype.
double hybrid_bucket_bytes(const JobSpec& job, const HybridSpec& layout);

// The job's layout with its data-parallel size resolved from its devices.
HybridSpec job_layout(const Scenario& s, const JobSpec& job);

// One rank's share of the job's transformer under `layout` (`data` resolved): sizes, dtype, autocast.
ShardShape job_shard_shape(const JobSpec& job, const HybridSpec& layout);

// Whether framework.tp_comm_overlap puts the job's tensor-parallel collectives beside their GEMMs: on, in a hybrid job
// with tensor > 1 and sequence parallelism (a tensor group across nodes still runs them alone).
bool tp_comm_overlap_applies(const JobSpec& job);

// The bytes an all-gather of `params` parameters carries (ZeRO's gathers), `fp8` of them linear-layer weights
// (block_linear_weights): those in one byte when the job keeps its parameters in fp8 (framework.fp8_param_gather
// with model.fp8: Transformer Engine's fp8 weights, gathered as they are stored), the rest in the model's dtype.
double param_gather_bytes(const JobSpec& job, double params, double fp8);

// The bytes each pipeline stage's ranks need at their peak (models/parallel/memory.hpp), stage 0 first.
std::vector<StageMemory> job_memory(const Scenario& s, const JobSpec& job);
// The same for the job's model and precision under another layout (`data` resolved).
std::vector<StageMemory> layout_memory(const JobSpec& job, const HybridSpec& layout);

// When a rank of job `index` needs more memory than its device has: one line naming the job, the
// first such rank, its stage, the bytes needed (by category) and available, and what lowers them.
std::optional<std::string> memory_overflow(const Scenario& s, size_t index);

}  // namespace dtsim
