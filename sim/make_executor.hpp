// The engine a scenario asks for (run.engine), built for its cluster: the one place that chooses.
#pragma once

#include <memory>

#include "core/plan/compiler.hpp"
#include "core/plan/plan.hpp"
#include "core/run/observer.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim::sim {

std::unique_ptr<Executor> make_executor(const Scenario& s);

// Whether this build has the SimGrid engine (the GPU bundle's dtsim has not).
bool simgrid_available();

// How finely make_executor's engine wants the scenario's plan compiled: every kernel an op, or, on SimGrid at flow
// fidelity for a symmetric hybrid job when nobody reads its records op by op (no trace, no hook),
// PlanDetail::NodeBlocks (core/plan/compiler.hpp): the flows that cross NICs, with the kernels and
// the collectives inside a node folded into composites, timed by their closed forms.
PlanDetail plan_detail_for_engine(const Scenario& s, bool op_records_read);

}  // namespace dtsim::sim
