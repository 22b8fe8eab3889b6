// The memory estimate of a run and the refusal of one that would not fit (footprint.hpp).
#include "sim/footprint.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "core/plan/compiler.hpp"
#include "sim/analytical/symmetric.hpp"

namespace dtsim::sim {
namespace {

// Measured (footprint.hpp): bytes per planned op, per op record without and with a trace, and the base.
constexpr double kPerOp = 261;
constexpr double kPerRecord = 161;
constexpr double kPerTracedRecord = 411;
constexpr double kBase = 280e6;

// Ops per iteration over every rank, from one representative per class: each rank counts as the
// representative of its (job, pipeline stage).
double represented_ops(const Plan& plan) {
  std::map<std::pair<int, int>, double> per_class;
  for (const RankProgram& r : plan.ranks) {
    if (!r.ops.empty()) per_class[{r.job, r.stage}] = static_cast<double>(r.ops.size());
  }
  double ops = 0;
  for (const RankProgram& r : plan.ranks) ops += per_class[{r.job, r.stage}];
  return ops;
}

// At least a forward and a backward op per layer on every worker.
double ops_lower_bound(const Scenario& s) {
  double ops = 0;
  for (const JobSpec& j : s.jobs) {
    const double layers = std::max<double>(1, static_cast<double>(j.workload.layers.size()));
    ops += static_cast<double>(j.workers(s.cluster)) * 2 * layers;
  }
  return ops;
}

double estimate_bytes(double ops, double records, bool trace) {
  return kBase + ops * kPerOp + records * (trace ? kPerTracedRecord : kPerRecord);
}

}  // namespace

Footprint estimate_footprint(const Scenario& s, bool trace) {
  Footprint f;
  const double iterations = static_cast<double>(s.run.iterations) + s.run.warmup;
  const bool represented = has_representatives(s);
  // A symmetric hybrid job on the analytical engine runs its stage representatives only.
  const bool stage_run = s.run.engine == Engine::Analytical && s.jobs.size() == 1 &&
                         s.job().strategy.kind == StrategyKind::Hybrid && analytical::is_symmetric(s);
  double recorded_ops = 0;
  if (represented) {
    const Plan plan = compile_plan(s, PlanScope::Representatives);
    f.ops_per_iteration = represented_ops(plan);
    recorded_ops = stage_run ? static_cast<double>(plan.total_ops()) : f.ops_per_iteration;
  } else {
    f.ops_per_iteration = ops_lower_bound(s);
    // Compiling every rank is what would exhaust memory: refuse on the lower bound first.
    if (estimate_bytes(f.ops_per_iteration, f.ops_per_iteration * iterations, trace) <= available_memory()) {
      f.ops_per_iteration = compile_plan(s).total_ops();
    }
    recorded_ops = f.ops_per_iteration;
  }
  f.records = recorded_ops * iterations;
  const double planned = stage_run ? recorded_ops : f.ops_per_iteration;
  f.bytes = estimate_bytes(planned, f.records, trace);
  // Fewer iterations help only if one would fit; otherwise the cluster is too big.
  const double one_iteration = estimate_bytes(planned, recorded_ops, trace);
  f.driver = one_iteration <= available_memory() ? "run.iterations" : "cluster.nodes";
  return f;
}

double available_memory() {
  double bytes = std::numeric_limits<double>::infinity();
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream in(line);
    std::string key;
    double kb = 0;
    if (in >> key >> kb && key == "MemAvailable:") bytes = kb * 1024;
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    bytes = std::min(bytes, static_cast<double>(limit.rlim_cur));
  }
  return bytes;
}

void refuse_if_too_big(const Scenario& s, const Footprint& f) {
  const double available = available_memory();
  if (f.bytes <= available) return;
  const std::string why =
      f.driver == "run.iterations"
          ? fmt::format("{:.3g} op records: {:.3g} ops x {} iterations with warm-up", f.records,
                        f.records / (s.run.iterations + s.run.warmup), s.run.iterations + s.run.warmup)
          : fmt::format("{:.3g} ops per iteration over {:.0f} devices, {:.3g} op records", f.ops_per_iteration,
                        static_cast<double>(s.cluster.nodes) * s.cluster.devices_per_node, f.records);
  throw InputError(s.location_of(f.driver),
                   fmt::format("{}: the run would hold about {} in memory ({}), more than the {} this machine has "
                               "available; lower {}{}",
                               f.driver, format_bytes(f.bytes), why, format_bytes(available), f.driver,
                               f.driver == "run.iterations" ? " or run without a trace (--no-trace)" : ""));
}

}  // namespace dtsim::sim
