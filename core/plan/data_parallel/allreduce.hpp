// An AllReduce job's plan (allreduce.cpp): its workers' programs, the first compiled and the others sharing it.
#pragma once

#include <vector>

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

// The job's workers (placed in `plan` already) get their programs; with `first_only` only the first (the
// representative of every worker: PlanScope::Representatives).
void compile_allreduce(const Scenario& s, const JobSpec& job, JobPlan& jp, Plan& plan, bool first_only);

// Gradient buckets in backward order, as PyTorch DDP forms them: layers are taken from the last
// to the first, and a bucket closes once it holds at least bucket_bytes. Each bucket lists its
// layers; the last one listed is the one whose backward finishes it.
std::vector<std::vector<int>> gradient_buckets(const Workload& w, double bytes_per_param, double bucket_bytes);

}  // namespace dtsim
