// The gossip part of the plan compiler (AD-PSGD, Lian et al. 2018): each worker computes its
// gradient while its communication thread averages its model with one random peer, then steps.
#pragma once

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

void compile_gossip(const JobSpec& job, int job_index, Plan& plan);

// Each worker's peer in each iteration (warm-up included): uniform over the job's other workers,
// one seeded generator per job, drawn in (worker, iteration) order.
void draw_gossip_peers(const Scenario& s, Plan& plan);

}  // namespace dtsim
