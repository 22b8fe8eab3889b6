// dtsim tune: the best hybrid layouts of a scenario's transformer job on its devices. Three passes,
// each on fewer layouts and each closer to the truth:
//   1. every layout the rules allow (core/parallel/layout_space.hpp) that fits in memory (the memory
//      model, core/parallel/memory.hpp, within --max-memory-fraction of the device), ranked by the
//      closed form (layout_cost.hpp): thousands per second;
//   2. the best `screen` of them on the analytical engine (its event-by-event replay of the plan);
//   3. the best `top` of those on SimGrid (contention on the links can reorder them).
// The ranking is by the objective on the most exact engine that ran the layout.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel/hybrid.hpp"
#include "core/parallel/layout.hpp"
#include "core/parallel/layout_space.hpp"
#include "core/scenario/scenario.hpp"
#include "sim/tune/layout_cost.hpp"

namespace dtsim::tune {

struct TuneRequest {
  LayoutLimits limits;               // its devices are the job's; its global batch the job's when 0
  int top = 5;                       // re-simulated on SimGrid (0: none)
  int screen = 0;                    // run on the analytical engine; 0: max(32, 4 x top)
  int jobs = 1;                      // engine runs at once (child processes)
  double max_memory_fraction = 1.0;  // of the device's memory a rank may need
};

// One layout's figures: the closed form's always, the engines' where they ran it (0 otherwise).
struct Candidate {
  HybridSpec layout;
  LayoutCost closed;
  double peak_memory_bytes = 0;  // the busiest stage's rank (memory model)
  double analytical_s = 0;
  double simgrid_s = 0;
  double bubble_fraction = 0;                   // from the most exact engine run, else the closed form
  std::array<double, kGroupKinds> exposed_s{};  // likewise, per iteration by group kind
  double iteration_s() const {
    return simgrid_s > 0 ? simgrid_s : analytical_s > 0 ? analytical_s : closed.iteration_s;
  }
};

struct TuneResult {
  std::string scenario;
  int devices = 0;
  int global_batch = 0;
  double device_memory_bytes = 0;
  double peak_flops = 0;              // per device, in the job's dtype
  double model_flops_per_sample = 0;  // forward and backward of one sequence, no recompute (MFU's numerator)
  long layouts = 0;                   // valid under the rules
  long over_memory = 0;               // of those, refused by the memory model
  std::string commonest_overflow;     // the category most often largest in an overflowing stage
  double closed_form_seconds = 0;     // wall time of pass 1
  double engine_seconds = 0;          // wall time of passes 2 and 3
  bool simgrid = true;                // whether pass 3 could run (the GPU bundle's dtsim has no SimGrid)
  std::vector<Candidate> ranked;      // those that fit, best first (at most screen of them)
  // Every layout that fits, as (peak memory bytes per rank, closed-form iteration s), and the Pareto front of
  // the same points (no other layout both needs less memory and runs faster), by memory.
  std::vector<std::pair<double, double>> space;
  std::vector<std::pair<double, double>> pareto;
  double throughput(const Candidate& c) const { return global_batch / c.iteration_s(); }
  double mfu(const Candidate& c) const;
};

// The scenario's first job must be a hybrid job of a transformer.
TuneResult tune(const Scenario& s, TuneRequest request);

// The --set overrides that give `layout` to job 0 of a scenario (what `dtsim run` takes).
std::vector<std::string> layout_overrides(const HybridSpec& layout);

// The scenario with job 0 running `layout` (its rank order kept) on `engine`.
Scenario with_layout(const Scenario& s, const HybridSpec& layout, Engine engine);

}  // namespace dtsim::tune
