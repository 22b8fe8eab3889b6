// What a run will hold in memory, estimated before it starts, against what the machine has: `dtsim
// check` prints it, and `check`, `run` and each sweep point refuse a run that would exhaust memory,
// naming the key that drives it, instead of ending in std::bad_alloc or the kernel's OOM killer.
//
// A run holds its Plan (every rank's ops), one record per op per iteration, the metrics computed
// from them and, with a trace, trace.json's text. Measured on this project's build (docs/PERFORMANCE.md,
// "Memory of a run"): about 261 B per planned op, 161 B per op record without a trace and 411 B with
// one, over a base of 280 MB (the binary, SimGrid and the zoo).
#pragma once

#include <string>

#include "core/scenario/scenario.hpp"

namespace dtsim::sim {

struct Footprint {
  double ops_per_iteration = 0;  // over every rank
  double records = 0;            // ops x (iterations + warm-up)
  double bytes = 0;              // the estimate
  std::string driver;            // the key that drives it most: "run.iterations" or "cluster.nodes"
};

// The estimate for `dtsim run` of `s` (with or without trace.json). Compiles one representative
// rank per class of ranks where the strategy has them (AllReduce and hybrid jobs), else bounds the
// ops from below by a forward and a backward op per layer per worker before compiling every rank.
Footprint estimate_footprint(const Scenario& s, bool trace);

// Bytes this machine can still give a process (MemAvailable, capped by RLIMIT_AS when set).
double available_memory();

// Throws InputError (at the driving key) when the estimate exceeds available_memory().
void refuse_if_too_big(const Scenario& s, const Footprint& f);

}  // namespace dtsim::sim
