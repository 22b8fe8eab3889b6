// Shrinking a Plan so it runs on a small machine: --compute-scale multiplies the FLOPs (and
// memory traffic) of every compute and update op, --comm-scale the bytes of every collective
// and transfer (and so the size of the real model). The scaled Plan is what runs, what the trace
// shows and what metrics.json counts; metrics.json records both factors. The memory model's
// bytes (JobPlan::memory) scale with --comm-scale too: they are the scaled run's prediction.
#pragma once

#include "core/plan/plan.hpp"

namespace dtsim::real {

// Per rank, the FLOPs of one iteration; the largest over ranks.
double max_rank_flops(const Plan& plan);

// The compute scale `--compute-scale auto` picks: 1 when every rank's iteration holds at most
// kAutoFlopsPerRank FLOPs, else the factor that brings the busiest rank down to it.
inline constexpr double kAutoFlopsPerRank = 2e9;
double auto_compute_scale(const Plan& plan);

void scale_plan(Plan& plan, double compute_scale, double comm_scale);

}  // namespace dtsim::real
