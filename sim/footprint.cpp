// The memory estimate of a run and the refusal of one that would not fit (footprint.hpp).
#include "sim/footprint.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "core/plan/compiler.hpp"
#include "models/parallel/hybrid.hpp"
#include "sim/run.hpp"

namespace dtsim::sim {
namespace {

// Measured (footprint.hpp): bytes per planned op, per op record (trace.json is streamed to disk and
// adds nothing), and the base.
constexpr double kPerOp = 261;
constexpr double kPerRecord = 161;
constexpr double kBase = 280e6;
// A sweep point on the analytical fast path holds no op records but every rank's metrics, as JSON
// in the sweep's results: 11.2 to 11.6 KB per device measured (quickstart at 16,384 and 65,536
// nodes: 1.0 and 3.3 GB peak RSS), 2.8 KB for gpt2_fat_tree at 1,048,576 nodes (23.3 GB).
constexpr double kPerFastPathDevice = 12e3;

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

// At least a forward and a backward op per layer on every worker, and for a hybrid job per
// micro-batch on every rank (its stage's forward and backward).
struct LowerBound {
  double ops = 0;
  std::string micro_key;  // the strategy.global_batch of the job whose micro-batches add the most ops, or ""
};

LowerBound ops_lower_bound(const Scenario& s) {
  LowerBound bound;
  double most_micro = 0;
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    const JobSpec& j = s.jobs[i];
    const double workers = static_cast<double>(j.workers(s.cluster));
    const double layers = std::max<double>(1, static_cast<double>(j.workload.layers.size()));
    double per_worker = 2 * layers;
    if (j.strategy.kind == StrategyKind::Hybrid) {
      const HybridSpec h = resolve_layout(j.strategy.hybrid, j.workers(s.cluster));
      const double micro = 2.0 * h.micro_batches();
      per_worker = std::max(per_worker / h.pipeline, micro);
      if (micro * workers > most_micro && micro > layers / h.pipeline) {
        most_micro = micro * workers;
        bound.micro_key = s.job_key(i, "strategy.global_batch");
      }
    }
    bound.ops += workers * per_worker;
  }
  return bound;
}

double estimate_bytes(double ops, double records) { return kBase + ops * kPerOp + records * kPerRecord; }

// The convergence proxy (learn/): its synthetic data (features x samples doubles, twice: the dataset
// and its training and held-out split), the held-out logits (classes, and hidden units for the mlp, per
// sample), a minibatch (features x batch, and its copy), and per worker up to six vectors of the model's
// parameters (theta, gradient, codec state, ...). Measured (peak RSS, dp.yaml on 4 workers, analytical):
// 5,000 features x 20,000 samples 1.81 GB against 1.88 estimated; 2,000 features x 2,000 classes
// 0.93 GB against 1.08. A dataset read from a file is sized as it is read, before the run: its reader refuses a file
// that would not fit, and learn::load_split the models its features and classes make.
std::pair<double, std::string> proxy_footprint(const Scenario& s) {
  const ConvergenceSpec& c = s.run.convergence;
  if (!c.enabled) return {0, ""};
  const bool synthetic = c.dataset == ProxyDataset::Synthetic;
  const bool mlp = c.model == ProxyModel::Mlp;
  const double features = synthetic ? c.features : 0;
  const double samples = synthetic ? c.samples : 0;
  double workers = 0;
  for (const JobSpec& j : s.jobs) workers += j.workers(s.cluster);
  const double data = 8 * samples * (2 * features + c.classes + (mlp ? c.hidden : 0));
  const double batch = 8 * 2 * features * c.batch;
  const double models = proxy_model_bytes(c, features, c.classes, workers);
  std::string driver = "run.convergence.samples";
  if (batch > data && batch > models) driver = "run.convergence.batch";
  if (models > data && models > batch) {
    driver = mlp && c.hidden >= std::max(c.features, c.classes) ? "run.convergence.hidden"
             : c.classes > c.features                           ? "run.convergence.classes"
                                                                : "run.convergence.features";
  }
  return {data + batch + models, driver};
}

// The estimate from ops counted: `planned` held in the plan, `recorded` per iteration in the records,
// judged against one reading of the machine's memory.
Footprint counted(const Scenario& s, const LowerBound& bound, double ops_per_iteration, double planned, double recorded,
                  bool lower_bound, const Available& available) {
  Footprint f;
  f.ops_per_iteration = ops_per_iteration;
  f.lower_bound = lower_bound;
  f.available = available;
  f.records = recorded * (static_cast<double>(s.run.iterations) + s.run.warmup);
  std::tie(f.proxy_bytes, f.proxy_driver) = proxy_footprint(s);
  f.bytes = estimate_bytes(planned, f.records) + f.proxy_bytes;
  // Fewer iterations help only if one would fit; otherwise the cluster (or a hybrid job's micro-batches) is too big.
  f.driver = estimate_bytes(planned, recorded) <= available.bytes ? "run.iterations"
             : !bound.micro_key.empty()                           ? bound.micro_key
                                                                  : "cluster.nodes";
  return f;
}

}  // namespace

std::optional<Footprint> footprint_too_big_to_compile(const Scenario& s) {
  const LowerBound bound = ops_lower_bound(s);
  const double lower = bound.ops;
  const double iterations = static_cast<double>(s.run.iterations) + s.run.warmup;
  const Available available = available_memory();
  if (estimate_bytes(lower, lower * iterations) <= available.bytes) return std::nullopt;
  return counted(s, bound, lower, lower, lower, true, available);
}

Footprint footprint_of(const Scenario& s, const Plan& plan, PlanScope scope, bool only_plan_ranks_run) {
  const double every_rank = scope == PlanScope::Representatives ? represented_ops(plan) : plan.total_ops();
  const double run = only_plan_ranks_run ? static_cast<double>(plan.total_ops()) : every_rank;
  return counted(s, ops_lower_bound(s), every_rank, run, run, false, available_memory());
}

Footprint estimate_footprint(const Scenario& s, Plan* compiled) {
  if (auto too_big = footprint_too_big_to_compile(s)) return *too_big;
  const PlanScope scope = has_representatives(s) ? PlanScope::Representatives : PlanScope::AllRanks;
  Plan plan = compile_plan(s, scope);
  const Footprint f = footprint_of(s, plan, scope, runs_stage_representatives(s));
  if (compiled) *compiled = std::move(plan);
  return f;
}

Footprint estimate_fast_path_footprint(const Scenario& s) {
  Footprint f;
  f.bytes = kBase + kPerFastPathDevice * static_cast<double>(s.cluster.nodes) * s.cluster.devices_per_node;
  f.driver = "cluster.nodes";
  f.available = available_memory();
  return f;
}

void refuse_if_too_big(const Scenario& s, const Footprint& f) {
  const Available& available = f.available;
  if (f.bytes <= available.bytes) return;
  if (f.proxy_bytes > f.bytes / 2) {
    throw InputError(s.location_of(f.proxy_driver),
                     fmt::format("{}: the run would hold about {} in memory ({} of it the convergence proxy's data "
                                 "and models), more than the {} {}; lower {}",
                                 f.proxy_driver, format_bytes(f.bytes), format_bytes(f.proxy_bytes),
                                 format_bytes(available.bytes), available.what, f.proxy_driver));
  }
  const std::string why =
      f.records == 0 ? fmt::format("the metrics of {:.0f} devices",
                                   static_cast<double>(s.cluster.nodes) * s.cluster.devices_per_node)
      : f.driver == "run.iterations"
          ? fmt::format("{:.3g} op records: {:.3g} ops x {} iterations with warm-up", f.records,
                        f.records / (s.run.iterations + s.run.warmup), s.run.iterations + s.run.warmup)
          : fmt::format("{:.3g} ops per iteration over {:.0f} devices, {:.3g} op records", f.ops_per_iteration,
                        static_cast<double>(s.cluster.nodes) * s.cluster.devices_per_node, f.records);
  throw InputError(s.location_of(f.driver),
                   fmt::format("{}: the run would hold {} {} in memory ({}), more than the {} {}; lower {}", f.driver,
                               f.lower_bound ? "at least" : "about", format_bytes(f.bytes), why,
                               format_bytes(available.bytes), available.what, f.driver));
}

}  // namespace dtsim::sim
