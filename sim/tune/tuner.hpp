// dtsim tune: the best hybrid layouts of a scenario's transformer job on its devices. Three passes,
// each on fewer layouts and each closer to the truth:
//   1. every layout the rules allow (models/parallel/layout_space.hpp) that fits in memory (the memory
//      model, models/parallel/memory.hpp, within --max-memory-fraction of the device), ranked by the
//      closed form (layout_cost.hpp): thousands per second;
//   2. the best `screen` of them on the analytical engine (its event-by-event replay of the plan);
//   3. the best `top` of those on SimGrid (contention on the links can reorder them).
// The ranking is by the objective on the most exact engine that ran the layout.
//
// The objective (--objective): `time`, the shortest iteration on exactly the job's devices; `throughput`, the most
// samples per second on at most them; `cost`, the fewest device-seconds per sample on at most them. The last two
// search every whole-node count of 1, 2, 4, ... nodes and all of the job's (the job placed on its first nodes,
// `placement.nodes`): with the global batch fixed, fewer devices can be as fast (more only add bubble and
// communication) and are cheaper while they scale well. Throughput at a fixed batch is 1 / iteration time, so it ranks
// as time does, over more device counts.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/scenario/scenario.hpp"
#include "models/parallel/hybrid.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/layout_space.hpp"
#include "sim/tune/layout_cost.hpp"

namespace dtsim::tune {

enum class Objective { Time, Throughput, Cost };
std::string_view objective_name(Objective o);

struct TuneRequest {
  LayoutLimits limits;  // its devices are the job's; its global batch the job's when 0
  Objective objective = Objective::Time;
  int top = 5;                       // re-simulated on SimGrid (0: none)
  int screen = 0;                    // run on the analytical engine; 0: max(32, 4 x top)
  int jobs = 1;                      // engine runs at once (child processes)
  double max_memory_fraction = 1.0;  // of the device's memory a rank may need
};

// One layout's figures: the closed form's always, the engines' where they ran it (0 otherwise).
struct Candidate {
  HybridSpec layout;
  int devices = 0;  // t x p x d x c
  LayoutCost closed;
  double peak_memory_bytes = 0;  // the busiest stage's rank (memory model)
  double analytical_s = 0;
  double simgrid_s = 0;
  double bubble_fraction = 0;                   // from the most exact engine run, else the closed form
  std::array<double, kGroupKinds> exposed_s{};  // likewise, per iteration by group kind
  // An engine run that failed (its process died, or the engine refused the plan): the engine's message, the run
  // not kept (a resumed search runs it again). The layout is ranked on the most exact engine that did run it.
  std::string analytical_error;
  std::string simgrid_error;
  double iteration_s() const {
    return simgrid_s > 0 ? simgrid_s : analytical_s > 0 ? analytical_s : closed.iteration_s;
  }
};

struct TuneResult {
  std::string scenario;
  Objective objective = Objective::Time;
  int devices = 0;                 // the most searched (the job's)
  int devices_per_node = 0;        // the job's on each node
  std::vector<int> device_counts;  // those searched, fewest first
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
  size_t screened = 0;                // layouts of pass 2 (every shard's)
  bool pass2_whole = true;            // all of them have their analytical figures (a shard's search may not)
  size_t simgrid_runs = 0;            // layouts of pass 3 (every shard's), when it ran
  size_t reused = 0;                  // engine runs taken from EngineRuns::finished instead of run
  size_t ran = 0;                     // engine runs made (this process's share, or all of them gathered)
  std::vector<Candidate> ranked;      // those that fit, best first (at most screen of them)
  // A layout that fits, as the closed form prices it.
  struct SpacePoint {
    double memory_bytes = 0;   // peak per rank
    double closed_form_s = 0;  // an iteration
    int global_batch = 0;      // its own (the job's, or the one it takes within the tokens searched)
    double per_sample_s() const { return closed_form_s / global_batch; }
  };
  // Every layout that fits, and the Pareto front of the same points by memory: no other layout both needs less memory
  // and takes less time a sample (with the batch fixed, less time an iteration).
  std::vector<SpacePoint> space;
  std::vector<SpacePoint> pareto;
  double min_tokens = 0, max_tokens = 0;  // the tokens a step searched (LayoutLimits; 0: the global batch above)
  bool batch_searched() const { return max_tokens > 0; }
  // Each layout's own global batch (the job's, or the one it takes within the tokens searched).
  double throughput(const Candidate& c) const { return c.layout.global_batch / c.iteration_s(); }
  double device_seconds_per_sample(const Candidate& c) const {
    return c.devices * c.iteration_s() / c.layout.global_batch;
  }
  double mfu(const Candidate& c) const;
  // What the objective minimises for a layout whose iteration takes `seconds` (the candidate's by default): the time
  // a sample takes (an iteration's over its global batch: with the batch fixed, the iteration's order), or its
  // device-seconds (cost).
  double score(const Candidate& c, double seconds) const {
    return (objective == Objective::Cost ? c.devices * seconds : seconds) / c.layout.global_batch;
  }
  double score(const Candidate& c) const { return score(c, c.iteration_s()); }
  // The --set overrides that run a candidate (its layout; on the job's first nodes when it takes fewer devices).
  std::vector<std::string> overrides(const Candidate& c) const;
  // What names one engine run of a candidate in a search's journal: the engine, then its overrides.
  std::string run_key(const Candidate& c, Engine engine) const;
};

// Runs `pending` (indices into the scenarios), calling `done` as each finishes: sweep::run_points's shape under
// sweep::OnFailure::Report (a failed run reaches `done` as sweep::failed_point and the others go on).
using RunPoints = std::function<void(const std::vector<Scenario>& scenarios, const std::vector<size_t>& pending,
                                     int jobs, const std::function<void(size_t, const nlohmann::json&)>& done)>;

// How passes 2 and 3 run their layouts (dtsim tune's folder and --mpi, --shard: cli/tune_command.cpp).
struct EngineRuns {
  RunPoints run;  // empty: sweep::run_points. Over MPI ranks, `done` may come at one rank only: the scenarios
                  // handed over are the same at every rank (all of pass 1's best, in its order) and the pending
                  // indices those of the rank that decides.
  // The runs kept (run_key -> the engine's metrics), reused instead of run: asked once, when pass 2 has layouts.
  std::function<std::map<std::string, nlohmann::json>()> finished;
  // Each new run, as it ends (not a failed one: a resumed search runs it again).
  std::function<void(const std::string& key, const nlohmann::json& metrics)> on_run;
  // A shard: of each pass only the runs at positions shard, shard + shards, ... of its layouts (pass 2's in the closed
  // form's order, pass 3's in pass 2's), the others taken from `finished` where kept. Pass 3 runs only once all of
  // pass 2 is there (every shard's runs, merged). 1 shard: the whole search.
  size_t shard = 0;
  size_t shards = 1;
};

// The scenario's first job must be a hybrid job of a transformer.
TuneResult tune(const Scenario& s, TuneRequest request, const EngineRuns& runs = {});

// The --set overrides that give `layout` to job 0 of a scenario (what `dtsim run` takes).
std::vector<std::string> layout_overrides(const HybridSpec& layout);

// The scenario with job 0 running `layout` (its rank order included) on `engine`, on its first `devices` devices (whole
// nodes; 0: all of the job's).
Scenario with_layout(const Scenario& s, const HybridSpec& layout, Engine engine, int devices = 0);

// The job's nodes the search uses for `devices` devices (placement.nodes), and the device counts an objective searches.
int nodes_for(const Scenario& s, int devices);
std::vector<int> device_counts(const Scenario& s, Objective objective);

}  // namespace dtsim::tune
