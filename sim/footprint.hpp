// What a run will hold in memory, estimated before it starts, against what the machine has: `dtsim
// check` prints it, and `check`, `run` and each sweep point refuse a run that would exhaust memory,
// naming the key that drives it, instead of ending in std::bad_alloc or the kernel's OOM killer.
//
// A run holds its Plan (every rank's ops), one record per op per iteration and the metrics computed
// from them; trace.json is streamed to disk as it is made. Measured on this project's build
// (docs/PERFORMANCE.md, "Memory of a run"): about 261 B per planned op and 161 B per op record, with
// or without a trace, over a base of 280 MB (the binary, SimGrid and the zoo). Under `ulimit -v` the
// address space is what runs out, and it runs ahead of resident memory (libraries mapped whole,
// vectors grown by doubling): measured at most 1 GB plus twice the resident bytes.
#pragma once

#include <optional>
#include <string>

#include "core/base/available_memory.hpp"
#include "core/plan/compiler.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim::sim {

// Bytes of data this machine can still give a process (core/base/available_memory.hpp).
using dtsim::Available;
using dtsim::available_memory;

struct Footprint {
  double ops_per_iteration = 0;  // over every rank
  double records = 0;            // ops x (iterations + warm-up)
  double bytes = 0;              // the estimate
  std::string driver;            // the key that drives it most: "run.iterations" or "cluster.nodes"
  bool lower_bound = false;      // ops counted from below (a forward and a backward per layer or micro-batch)
  double proxy_bytes = 0;        // the convergence proxy's part of `bytes` (run.convergence.*)
  std::string proxy_driver;      // the run.convergence key that drives that part most
  Available available;           // the machine's memory the estimate was judged against: one reading
};

// The estimate for a run of `s` before its plan is compiled, when even the fewest ops it could have (a forward and
// a backward op per layer per worker, and per micro-batch of a hybrid job) would not fit: compiling is then what
// would exhaust memory. Nothing when they would fit.
std::optional<Footprint> footprint_too_big_to_compile(const Scenario& s);

// The estimate read from the plan a run compiled: every rank's ops (counted from the representatives where `scope`
// is PlanScope::Representatives), and held and recorded for every rank, or for the plan's ranks only where those
// are all that run (`only_plan_ranks_run`: a stage run, sim/run.hpp).
Footprint footprint_of(const Scenario& s, const Plan& plan, PlanScope scope, bool only_plan_ranks_run);

// The estimate for `dtsim check` of `s`: the bound above, else one plan compiled, of the representatives where the
// strategy has them (AllReduce and hybrid jobs), else of every rank; that plan is left in `compiled` when given
// (empty when the bound refused).
Footprint estimate_footprint(const Scenario& s, Plan* compiled = nullptr);

// A sweep point on the analytical fast path (no op records; every rank's metrics in the results).
Footprint estimate_fast_path_footprint(const Scenario& s);

// Throws InputError (at the driving key) when the estimate exceeds the memory it was judged against.
void refuse_if_too_big(const Scenario& s, const Footprint& f);

}  // namespace dtsim::sim
