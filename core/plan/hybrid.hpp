// Hybrid-parallel plans (strategy.kind: hybrid): a transformer split over tensor, context, expert,
// data and pipeline parallel ranks (core/parallel/), each rank running its pipeline schedule's
// forward and backward passes of its micro-batches, then the data-parallel gradient reduction
// (bucketed and overlapped with the last micro-batch's backward, or sharded by ZeRO) and its
// optimizer step.
#pragma once

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

// Ranks of the job are placed already (plan.jobs[job_index].workers, one per device).
void compile_hybrid(const Scenario& s, const JobSpec& job, int job_index, Plan& plan);

// The job's layout with its data-parallel size resolved from its devices.
HybridSpec job_layout(const Scenario& s, const JobSpec& job);

}  // namespace dtsim
