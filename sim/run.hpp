// One run of a scenario, decided in one place: the engine (make_executor), the fast path and the plan's shape,
// the memory check, then the run. Every caller goes through it: `dtsim run`, `checkpoint`, a sweep's points (and
// so `tune`'s re-simulations), `validate`'s prediction and the Python module.
//
// What the caller reads of the run decides the path (RunRequest::records):
//   Records::None              metrics only. Analytical engine: the symmetric fast path where it applies
//                              (analytical/symmetric.hpp), else the full engine; SimGrid: the plan compiled for it.
//   Records::Blocks, Kernels   op records too (a trace, the Learner of `dtsim run`): a symmetric hybrid job on the
//                              analytical engine runs one rank per pipeline stage (their records, every rank's
//                              metrics), each block one op or every kernel one; everything else runs every rank
//                              on the plan compiled for the engine (on SimGrid at flow fidelity a symmetric hybrid
//                              job's node blocks are folded unless every kernel is read: plan_detail_for_engine).
//   Records::EveryRankKernels  every rank's records, every kernel an op (a sweep point's hook): no fast path.
#pragma once

#include <functional>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/run/metrics.hpp"
#include "core/run/observer.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim::sim {

enum class Records { None, Blocks, Kernels, EveryRankKernels };

struct RunRequest {
  Records records = Records::None;
  // Refuse a run that would exhaust this machine's memory before it starts (sim/footprint.hpp).
  bool check_memory = true;
  // Sees the plan before the engine starts (its warnings can be said before a long run); not called on the
  // symmetric fast path, which keeps no plan.
  std::function<void(const Plan&)> before_run;
};

// How a run is made (run_path): the analytical engine's closed form for symmetric jobs (metrics only), one rank per
// pipeline stage of a symmetric hybrid job on the analytical engine, or every rank on the scenario's engine.
enum class RunPath { SymmetricFastPath, StageRepresentatives, EveryRank };

struct RunResult {
  Plan plan;                      // empty on the symmetric fast path (RunPath::SymmetricFastPath)
  std::vector<OpRecord> records;  // the plan's ranks' (empty likewise)
  std::vector<Metrics> metrics;   // every job's, every rank in them
};

// Whether a symmetric hybrid job on the analytical engine runs one rank per pipeline stage: the one test for it
// (the memory estimate reads it too).
bool runs_stage_representatives(const Scenario& s);
// The path `run` takes for the scenario and request.
RunPath run_path(const Scenario& s, const RunRequest& request);

// A run made ready: the path it takes and its plan, compiled once, in the detail that path runs (empty on the
// symmetric fast path, which compiles its own). The memory check reads that plan (sim/footprint.hpp); it first
// refuses a scenario whose fewest possible ops would not fit, before compiling anything, and where every rank of a
// job with representatives (AllReduce, hybrid) will run, it counts their plan, a rank per class, before compiling
// every rank.
struct PreparedRun {
  RunPath path = RunPath::EveryRank;
  Plan plan;
};

// Prepares the run the request asks for: refuses it (InputError, located) when it would exhaust this machine's
// memory and request.check_memory; for callers that must refuse before they say or read anything else (the CLI's
// warnings, the Python module's child process), then hand the prepared run to `run`.
PreparedRun prepare(const Scenario& s, const RunRequest& request);

// Runs a prepared run (request.before_run sees its plan; its memory is not checked again).
RunResult run(const Scenario& s, PreparedRun prepared, const RunRequest& request);

// prepare, then run. Throws InputError (located) when the memory check refuses it.
RunResult run(const Scenario& s, const RunRequest& request);

// Runs a plan the caller compiled and changed (validate's, scaled to the measured machine) on the scenario's engine.
RunResult run_plan(const Scenario& s, Plan plan);

}  // namespace dtsim::sim
