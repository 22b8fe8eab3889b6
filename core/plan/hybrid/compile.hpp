// Hybrid-parallel plans (strategy.kind: hybrid): a transformer split over tensor, context, expert,
// data and pipeline parallel ranks (models/parallel/), each rank running its pipeline schedule's
// forward and backward passes of its micro-batches, then the data-parallel gradient reduction
// (bucketed and overlapped with the last micro-batch's backward, or sharded by ZeRO) and its
// optimizer step.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/plan/compiler.hpp"
#include "core/plan/hybrid/groups.hpp"
#include "core/plan/hybrid/job.hpp"
#include "core/plan/hybrid/work.hpp"
#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"
#include "models/parallel/transformer_ops.hpp"

namespace dtsim {

// Ranks of the job are placed already (plan.jobs[job_index].workers, one per device). With
// `representatives`, only the first rank of each pipeline stage gets its program. `detail`: how
// finely the work is split into ops (compiler.hpp).
void compile_hybrid(const Scenario& s, const JobSpec& job, int job_index, Plan& plan, bool representatives = false,
                    PlanDetail detail = PlanDetail::Kernels);

}  // namespace dtsim
