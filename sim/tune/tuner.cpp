// dtsim tune's three passes (tuner.hpp).
#include "sim/tune/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/base/available_memory.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "core/plan/hybrid/job.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/model_flops.hpp"
#include "models/parallel/schedule.hpp"
#include "models/parallel/transformer_ops.hpp"
#include "sim/make_executor.hpp"
#include "sim/sweep/point_runner.hpp"

namespace dtsim::tune {
namespace {

// What a search holds grows with its devices: each (tensor, context, pipeline) shape's probe places and groups every
// rank (layout_cost.cpp), and the screened layouts run on the analytical engine. Measured (peak RSS of `dtsim tune
// scenarios/gpt3_175b_megatron.yaml --top 0 --screen 1`, one layout fixed, global batch = devices) at 65,536 and
// 262,144 devices: 874 MB and 2.67 GB; shown at 131,072 (1.45 GB, 1.5 % below the estimate), on the whole search of
// 65,536 (876 MB) and of 1,048,576 (9.7 GB, 1.8 % below). docs/PERFORMANCE.md.
constexpr double kSearchBase = 274e6;
constexpr double kSearchPerDevice = 9154;

// Refuses, before the first probe, a search whose devices would not fit in memory (2^24 devices ended in
// std::bad_alloc after 10 s under a 4 GB `ulimit -v`).
void refuse_if_search_too_big(int devices) {
  const double need = kSearchBase + kSearchPerDevice * devices;
  const Available available = available_memory();
  if (need <= available.bytes) return;
  throw InputError(
      fmt::format("tune: a search on {} devices would hold about {} ({:.0f} B a device: every rank of a "
                  "layout placed and grouped, and the analytical runs), more than the {} {}; search "
                  "fewer devices",
                  devices, format_bytes(need), kSearchPerDevice, format_bytes(available.bytes), available.what));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

constexpr const char* kCategories[] = {"parameters", "gradients", "optimizer", "activations", "communication"};

// The category that weighs most in a stage's peak.
int largest_category(const MemoryBreakdown& b) {
  const double v[] = {b.parameters, b.gradients, b.optimizer, b.activations, b.communication};
  return static_cast<int>(std::max_element(std::begin(v), std::end(v)) - std::begin(v));
}

double field(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The engine's figures of one run into the candidate.
void take_metrics(const nlohmann::json& metrics, Engine engine, Candidate& c) {
  const double mean = field(metrics.at("iteration_time_s"), "mean");
  (engine == Engine::SimGrid ? c.simgrid_s : c.analytical_s) = mean;
  c.bubble_fraction = field(metrics, "bubble_fraction");
  c.exposed_s.fill(0);
  if (const auto it = metrics.find("exposed_comm_by_kind_s"); it != metrics.end() && it->is_object()) {
    for (int k = 0; k < kGroupKinds; ++k) {
      c.exposed_s[static_cast<size_t>(k)] = field(*it, std::string(group_kind_name(static_cast<GroupKind>(k))).c_str());
    }
  }
}

// One engine pass over `candidates` (pass 1's best, in its order): those at `chosen` positions, each taken from
// `finished` when kept there, the rest run (`jobs` at once; of a shard, the k-th of `chosen` when k is its share)
// and handed to runs.on_run as they finish. The scenarios of every candidate go to the runner (the same at every MPI
// rank), the pending runs by position. Returns the positions of `chosen` that have the engine's figures now (at the
// rank that decides).
std::vector<size_t> run_on(const Scenario& s, Engine engine, TuneResult& result, std::vector<Candidate>& candidates,
                           const std::vector<size_t>& chosen, int jobs, const EngineRuns& runs,
                           const std::map<std::string, nlohmann::json>& finished) {
  std::vector<Scenario> scenarios;
  scenarios.reserve(candidates.size());
  for (const Candidate& c : candidates) scenarios.push_back(with_layout(s, c.layout, engine, c.devices));
  std::vector<char> has(candidates.size(), 0);
  std::vector<size_t> pending;
  for (size_t k = 0; k < chosen.size(); ++k) {
    const size_t i = chosen[k];
    if (const auto kept = finished.find(result.run_key(candidates[i], engine)); kept != finished.end()) {
      take_metrics(kept->second, engine, candidates[i]);
      has[i] = 1;
      ++result.reused;
    } else if (k % runs.shards == runs.shard) {
      pending.push_back(i);
    }
  }
  const auto done = [&](size_t i, const nlohmann::json& metrics) {
    has[i] = 1;
    ++result.ran;
    if (const auto failure = sweep::point_failure(metrics)) {
      (engine == Engine::SimGrid ? candidates[i].simgrid_error : candidates[i].analytical_error) = *failure;
      return;
    }
    take_metrics(metrics, engine, candidates[i]);
    if (runs.on_run) runs.on_run(result.run_key(candidates[i], engine), metrics);
  };
  if (runs.run) {
    runs.run(scenarios, pending, jobs, done);
  } else {
    sweep::run_points(scenarios, pending, jobs, done, {}, sweep::OnFailure::Report);
  }
  std::vector<size_t> with;
  for (const size_t i : chosen) {
    if (has[i]) with.push_back(i);
  }
  return with;
}

}  // namespace

double TuneResult::mfu(const Candidate& c) const {
  return model_flops_per_sample * c.layout.global_batch / (c.iteration_s() * c.devices * peak_flops);
}

std::vector<std::string> TuneResult::overrides(const Candidate& c) const {
  std::vector<std::string> sets = layout_overrides(c.layout);
  if (c.devices != devices) sets.push_back(fmt::format("placement.nodes={}", c.devices / devices_per_node));
  return sets;
}

std::string TuneResult::run_key(const Candidate& c, Engine engine) const {
  return fmt::format("{} {}", engine_name(engine), fmt::join(overrides(c), " "));
}

std::string_view objective_name(Objective o) {
  switch (o) {
    case Objective::Time: return "time";
    case Objective::Throughput: return "throughput";
    case Objective::Cost: return "cost";
  }
  return "time";
}

int nodes_for(const Scenario& s, int devices) { return devices / s.job().local_count(s.cluster); }

std::vector<int> device_counts(const Scenario& s, Objective objective) {
  const JobSpec& job = s.job();
  const int all = job.devices(s.cluster);
  if (objective == Objective::Time) return {all};
  std::vector<int> counts;
  for (int nodes = 1; nodes < job.node_count(s.cluster); nodes *= 2)
    counts.push_back(nodes * job.local_count(s.cluster));
  counts.push_back(all);
  return counts;
}

std::vector<std::string> layout_overrides(const HybridSpec& h) {
  std::vector<std::string> sets = {
      fmt::format("strategy.tensor={}", h.tensor),
      fmt::format("strategy.pipeline.stages={}", h.pipeline),
      fmt::format("strategy.pipeline.schedule={}", schedule_name(h.schedule)),
      fmt::format("strategy.pipeline.virtual_stages={}", h.virtual_stages),
      fmt::format("strategy.data={}", h.data),
      fmt::format("strategy.expert={}", h.expert),
      fmt::format("strategy.context={}", h.context),
      fmt::format("strategy.sequence_parallel={}", h.sequence_parallel ? "true" : "false"),
      fmt::format("strategy.micro_batch={}", h.micro_batch),
      fmt::format("strategy.global_batch={}", h.global_batch),
      fmt::format("strategy.recompute={}", recompute_name(h.recompute)),
      fmt::format("strategy.recompute_every={}", h.recompute_every),
      fmt::format("strategy.zero={}", h.zero),
      fmt::format("strategy.rank_order={}", h.rank_order),
  };
  return sets;
}

Scenario with_layout(const Scenario& s, const HybridSpec& layout, Engine engine, int devices) {
  Scenario out = s;
  if (devices > 0) out.jobs.front().placement.nodes = nodes_for(s, devices);
  out.jobs.front().strategy.hybrid = layout;
  out.run.engine = engine;
  return out;
}

TuneResult tune(const Scenario& s, TuneRequest request, const EngineRuns& runs) {
  const JobSpec& job = s.job();
  static_cast<void>(LayoutCoster(s, 0));  // refuses a job that is not a hybrid transformer, before anything else
  TuneResult result;
  result.scenario = s.name;
  result.objective = request.objective;
  result.devices = job.devices(s.cluster);
  refuse_if_search_too_big(result.devices);
  result.device_counts = device_counts(s, request.objective);
  result.devices_per_node = job.local_count(s.cluster);
  LayoutLimits& limits = request.limits;
  limits.rank_order = job.strategy.hybrid.rank_order;  // the scenario's, first of those searched
  if (limits.global_batch <= 0) {
    const HybridSpec h = job_layout(s, job);
    limits.global_batch = h.global_batch > 0 ? h.global_batch : h.micro_batch * h.data;
  }
  result.global_batch = limits.global_batch;
  result.min_tokens = limits.min_tokens;
  result.max_tokens = limits.max_tokens;
  result.device_memory_bytes = s.cluster.device_at(job.placement.first_node).mem_capacity;
  for (int n = job.placement.first_node; n < job.placement.first_node + job.node_count(s.cluster); ++n) {
    result.device_memory_bytes = std::min(result.device_memory_bytes, s.cluster.device_at(n).mem_capacity);
  }
  result.peak_flops = s.cluster.device_at(job.placement.first_node).peak(job.model.dtype);
  result.model_flops_per_sample = model_flops_per_sample(job.model.transformer, dtype_bytes(job.model.dtype));
  if (request.screen <= 0) request.screen = std::max(32, 4 * request.top);

  // Pass 1: every valid layout, its memory and its closed-form cost.
  const auto start = std::chrono::steady_clock::now();
  const double budget = result.device_memory_bytes * request.max_memory_fraction;
  std::vector<Candidate> fits;
  std::array<long, 5> overflow_by{};
  for (const int devices : result.device_counts) {
    Scenario on = s;  // the job on its first nodes: the coster's probes place their ranks there
    on.jobs.front().placement.nodes = nodes_for(s, devices);
    LayoutCoster coster(on, 0);
    limits.devices = devices;
    result.layouts += for_each_layout(job.model.transformer, limits, [&](const HybridSpec& h) {
      const std::vector<StageMemory> stages = layout_memory(job, h);
      const auto peak = std::max_element(stages.begin(), stages.end(), [](const StageMemory& a, const StageMemory& b) {
        return a.bytes.total() < b.bytes.total();
      });
      if (peak->bytes.total() > budget) {
        ++result.over_memory;
        ++overflow_by[static_cast<size_t>(largest_category(peak->bytes))];
        return;
      }
      Candidate c;
      c.layout = h;
      c.devices = devices;
      c.peak_memory_bytes = peak->bytes.total();
      c.closed = coster.cost(h);
      c.bubble_fraction = c.closed.bubble_s / c.closed.iteration_s;
      c.exposed_s = c.closed.exposed_s;
      fits.push_back(c);
    });
  }
  if (result.over_memory > 0) {
    result.commonest_overflow =
        kCategories[std::max_element(overflow_by.begin(), overflow_by.end()) - overflow_by.begin()];
  }
  for (const Candidate& c : fits)
    result.space.push_back({c.peak_memory_bytes, c.closed.iteration_s, c.layout.global_batch});
  std::vector<TuneResult::SpacePoint> sorted = result.space;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.memory_bytes != b.memory_bytes ? a.memory_bytes < b.memory_bytes : a.per_sample_s() < b.per_sample_s();
  });
  for (const auto& point : sorted) {
    if (result.pareto.empty() || point.per_sample_s() < result.pareto.back().per_sample_s())
      result.pareto.push_back(point);
  }
  const auto by_closed_form = [&result](const Candidate& a, const Candidate& b) {
    return result.score(a, a.closed.iteration_s) < result.score(b, b.closed.iteration_s);
  };
  const size_t screen = std::min(fits.size(), static_cast<size_t>(request.screen));
  std::partial_sort(fits.begin(), fits.begin() + static_cast<std::ptrdiff_t>(screen), fits.end(), by_closed_form);
  fits.resize(screen);
  result.screened = screen;
  result.closed_form_seconds = seconds_since(start);

  // Passes 2 and 3: the engines on the best of them, by the objective.
  const auto engines = std::chrono::steady_clock::now();
  const auto by_objective = [&result](const Candidate& a, const Candidate& b) {
    return result.score(a) < result.score(b);
  };
  // The candidates keep pass 1's order (every MPI rank hands the runner the same scenarios); `order` ranks them.
  std::vector<size_t> order(fits.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const std::map<std::string, nlohmann::json> finished =
      runs.finished && !fits.empty() ? runs.finished() : std::map<std::string, nlohmann::json>();
  const std::vector<size_t> analysed = run_on(s, Engine::Analytical, result, fits, order, request.jobs, runs, finished);
  // A shard ranks what it has; pass 3 needs all of pass 2 (every shard's runs, --merge).
  result.pass2_whole = runs.shards == 1 || analysed.size() == fits.size();
  if (!result.pass2_whole) order = analysed;
  const auto by_objective_at = [&](size_t a, size_t b) { return by_objective(fits[a], fits[b]); };
  std::stable_sort(order.begin(), order.end(), by_objective_at);
  result.simgrid = sim::simgrid_available();
  if (request.top > 0 && result.simgrid && result.pass2_whole) {
    // The best `top` that the analytical engine ran (one it could not run would fail on SimGrid too).
    std::vector<size_t> best;
    auto top = order.begin();
    for (; top != order.end() && best.size() < static_cast<size_t>(request.top); ++top) {
      if (fits[*top].analytical_error.empty()) best.push_back(*top);
    }
    result.simgrid_runs = best.size();
    run_on(s, Engine::SimGrid, result, fits, best, request.jobs, runs, finished);
    std::stable_sort(order.begin(), top, by_objective_at);
  }
  result.engine_seconds = seconds_since(engines);
  for (const size_t i : order) result.ranked.push_back(std::move(fits[i]));
  return result;
}

}  // namespace dtsim::tune
