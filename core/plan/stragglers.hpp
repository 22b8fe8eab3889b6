// Stragglers in the Plan: per-rank, per-iteration compute slowdown factors drawn from the
// scenario (fixed slow workers, seeded random jitter). Every executor multiplies compute
// durations by them, so the simulated and the real runs straggle alike.
#pragma once

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

// Fills plan.slowdown when any job straggles (empty otherwise), plan.profiles and rank_profile for
// speed profiles, and plan.batch_scale for jobs with dynamic batch sizing.
void apply_stragglers(const Scenario& s, Plan& plan);

}  // namespace dtsim
