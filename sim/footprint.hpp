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

#include <string>

#include "core/base/available_memory.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim::sim {

struct Footprint {
  double ops_per_iteration = 0;  // over every rank
  double records = 0;            // ops x (iterations + warm-up)
  double bytes = 0;              // the estimate
  std::string driver;            // the key that drives it most: "run.iterations" or "cluster.nodes"
  bool lower_bound = false;      // ops counted from below (a forward and a backward per layer or micro-batch)
  double proxy_bytes = 0;        // the convergence proxy's part of `bytes` (run.convergence.*)
  std::string proxy_driver;      // the run.convergence key that drives that part most
};

// The estimate for `dtsim run` of `s`. Compiles one representative
// rank per class of ranks where the strategy has them (AllReduce and hybrid jobs), else bounds the
// ops from below by a forward and a backward op per layer per worker before compiling every rank.
Footprint estimate_footprint(const Scenario& s);

// A sweep point on the analytical fast path (no op records; every rank's metrics in the results).
Footprint estimate_fast_path_footprint(const Scenario& s);

// Bytes of data this machine can still give a process (core/base/available_memory.hpp).
using dtsim::Available;
using dtsim::available_memory;

// Throws InputError (at the driving key) when the estimate exceeds available_memory().
void refuse_if_too_big(const Scenario& s, const Footprint& f);

}  // namespace dtsim::sim
