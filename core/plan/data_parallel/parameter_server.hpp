// The parameter-server part of the plan compiler: workers push gradient shards and pull
// parameters; under BSP each shard's server aggregates every worker's push and updates once,
// under ASP and SSP a server applies each push at once (one server rank per shard and worker,
// all of a shard's on one host, whose compute they share).
#pragma once

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

void compile_parameter_server(const Scenario& s, const JobSpec& job, int job_index, Plan& plan);

// Parameters of each layer that fall in each shard: [shard][layer].
std::vector<std::vector<double>> shard_params(const Workload& w, int shards, PsSplit split);

}  // namespace dtsim
