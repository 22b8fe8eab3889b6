// The analytical engine's fast path for symmetric data parallelism. In a single AllReduce job
// under BSP every worker runs the same program on the same kind of device, and every collective
// spans all workers, so every worker sees the same timeline: evaluating one representative
// worker with the full engine's rules (FIFO streams, deps, a collective ends at the last
// arrival plus its closed form, compute slowed while it communicates) gives every worker's
// records. The representative's two streams are swept forward without an event queue
// (stream_sweep.hpp); its sweep order and compute costs are kept per thread with its program, so
// a sweep's points that share the job recompute only their collectives. In a hybrid job the ranks of one
// pipeline stage share a timeline: the first rank of each stage runs on the full event loop (the
// stages exchange messages), the others take its metrics. tests/sim/analytical/symmetric_test.cpp
// holds it equal to the full engine on every scenario in scenarios/ and on sweeps.
#pragma once

#include <optional>
#include <vector>

#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim::analytical {

// Whether the fast path applies (one AllReduce or hybrid job, no stragglers); when not, use AnalyticalExecutor.
bool is_symmetric(const Scenario& s);

// A symmetric hybrid job (is_symmetric) run with one rank per pipeline stage: the plan of
// representatives (the other ranks placed, without programs), their records, and every rank's
// metrics (each takes its stage representative's).
struct StageRun {
  Plan plan;
  std::vector<OpRecord> records;
  std::vector<Metrics> metrics;
};
// With PlanDetail::Blocks each block is one op (compiler.hpp): the same metrics, for runs that
// need no kernel-level trace.
StageRun run_stage_representatives(const Scenario& s, PlanDetail detail = PlanDetail::Kernels);
// The same on the plan of representatives compiled by the caller (compile_plan(s, PlanScope::Representatives, ...)).
StageRun run_stage_representatives(const Scenario& s, Plan representatives);

// The metrics AnalyticalExecutor would give for the scenario, or nothing when the fast path does
// not apply. RunInfo says engine "analytical", fidelity "closed_form".
std::optional<std::vector<Metrics>> run_symmetric(const Scenario& s);

// The metrics of the analytical engine: the fast path where it applies, else the full engine.
std::vector<Metrics> run_analytical(const Scenario& s);

}  // namespace dtsim::analytical
