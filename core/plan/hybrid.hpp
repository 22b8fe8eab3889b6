// Hybrid-parallel plans (strategy.kind: hybrid): a transformer split over tensor, context, expert,
// data and pipeline parallel ranks (core/parallel/), each rank running its pipeline schedule's
// forward and backward passes of its micro-batches, then the data-parallel gradient reduction
// (bucketed and overlapped with the last micro-batch's backward, or sharded by ZeRO) and its
// optimizer step.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/parallel/memory.hpp"
#include "core/plan/compiler.hpp"
#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

// Ranks of the job are placed already (plan.jobs[job_index].workers, one per device). With
// `representatives`, only the first rank of each pipeline stage gets its program. `detail`: how
// finely the work is split into ops (compiler.hpp).
void compile_hybrid(const Scenario& s, const JobSpec& job, int job_index, Plan& plan, bool representatives = false,
                    PlanDetail detail = PlanDetail::Kernels);

// The gradient bytes of one data-parallel bucket: strategy.allreduce.bucket_size when given, else
// Megatron-core's default (DistributedDataParallelConfig.bucket_size: max(40,000,000, 1,000,000 x
// data-parallel size) parameters, "larger DP sizes need larger buckets to ensure collectives do not
// become latency-bound") of gradients in model.grad_dtype.
double hybrid_bucket_bytes(const JobSpec& job, const HybridSpec& layout);

// Whether job-local rank `local` represents its stage (its tensor, context, expert and data coordinates are 0).
bool represents_stage(const HybridLayout& layout, int local);

// The job's layout with its data-parallel size resolved from its devices.
HybridSpec job_layout(const Scenario& s, const JobSpec& job);

// The bytes each pipeline stage's ranks need at their peak (core/parallel/memory.hpp), stage 0 first.
std::vector<StageMemory> job_memory(const Scenario& s, const JobSpec& job);

// When a rank of job `index` needs more memory than its device has: one line naming the job, the
// first such rank, its stage, the bytes needed (by category) and available, and what lowers them.
std::optional<std::string> memory_overflow(const Scenario& s, size_t index);

}  // namespace dtsim
