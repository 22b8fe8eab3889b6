// The symmetric fast path (symmetric.hpp): a data-parallel job's representative worker swept on its
// two streams (stream_sweep.hpp), a hybrid job's stage representatives on the event loop.
#include "sim/analytical/symmetric.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <utility>

#include "core/plan/compiler.hpp"
#include "models/cost/cores.hpp"
#include "models/cost/cost_model.hpp"
#include "sim/analytical/engine.hpp"
#include "sim/analytical/stream_sweep.hpp"

namespace dtsim::analytical {
namespace {

// What the fast path keeps per thread with the representative's program: a sweep's points that share the job's
// program (the compiler keeps it, compiler.cpp) reuse its sweep order, and its compute ops' costs while the compute
// context (cost_model.hpp) is the same too. Collectives change with the cluster: costed each time.
struct KeptProgram {
  Program program;
  std::optional<StreamSweep> sweep;
  std::optional<cost::CostModel::ComputeContext> context;
  std::vector<double> seconds;  // by op: compute ops' costs under `context`
};
const KeptProgram& kept_program(const cost::CostModel& costs, const RankProgram& rep) {
  thread_local std::optional<KeptProgram> kept;
  if (!kept || !kept->program.shares(rep.ops)) kept = KeptProgram{rep.ops, StreamSweep::of(rep), std::nullopt, {}};
  const std::optional<cost::CostModel::ComputeContext> context = costs.compute_context(rep);
  if (!context || kept->context != context) {
    const size_t n = rep.ops.size();
    kept->seconds.assign(n, 0.0);
    for (size_t i = 0; i < n; ++i) {
      if (const auto* c = std::get_if<ComputeOp>(&rep.ops[i].body)) kept->seconds[i] = costs.compute_time(rep, *c);
      if (const auto* u = std::get_if<UpdateOp>(&rep.ops[i].body)) kept->seconds[i] = costs.update_time(rep, *u);
    }
    kept->context = context;
  }
  return *kept;
}

}  // namespace

bool is_symmetric(const Scenario& s) {
  // Stragglers make workers differ: then every worker must be evaluated.
  const StragglerSpec& st = s.job().stragglers;
  const bool straggles = st.jitter != Jitter::None || (!st.slow_workers.empty() && st.slow_factor != 1.0);
  // Compression computes on the comm stream, sharing the device with the backward pass: the full
  // engine queues those ops on the device, the fast path does not.
  const bool compresses = s.job().compression.method != CompressionMethod::None;
  // Local SGD skips the exchange in most iterations, which the one-worker evaluation does not model.
  const bool bsp = s.job().sync.kind == SyncKind::Bsp;
  // Speed and NIC profiles, mixed devices and dynamic batches make workers or times differ too.
  const bool varies = !st.speed_profile.times.empty() || !s.cluster.nic_profile.times.empty() ||
                      s.cluster.heterogeneous() || s.job().strategy.dynamic_batch;
  const bool kind = s.job().strategy.kind == StrategyKind::AllReduce || s.job().strategy.kind == StrategyKind::Hybrid;
  // A job replaying Chakra traces has ranks that may differ in every op.
  const bool replays = !s.job().chakra.prefix.empty();
  return s.jobs.size() == 1 && kind && !straggles && !compresses && bsp && !varies && !replays;
}

StageRun run_stage_representatives(const Scenario& s, PlanDetail detail) {
  return run_stage_representatives(s, compile_plan(s, PlanScope::Representatives, detail));
}

StageRun run_stage_representatives(const Scenario& s, Plan representatives) {
  const auto t_start = std::chrono::steady_clock::now();
  StageRun run{std::move(representatives), {}, {}};
  Recorder rec;
  const RunInfo info = AnalyticalExecutor(s.cluster).run(run.plan, rec);
  run.records = rec.records();
  JobPlan& jp = run.plan.jobs.front();
  const std::vector<int> workers = jp.workers;
  std::map<int, int> representative;  // stage -> its rank
  for (int r : workers) {
    if (!run.plan.ranks[r].ops.empty()) representative.emplace(run.plan.ranks[r].stage, r);
  }
  jp.workers.clear();
  for (const auto& [stage, r] : representative) jp.workers.push_back(r);
  Metrics m =
      compute_metrics(run.plan, run.records,
                      RunInfo{std::string(engine_name(Engine::Analytical)), "closed_form", 0, info.composites}, 0);
  jp.workers = workers;
  std::map<int, RankMetrics> by_stage;
  for (const RankMetrics& rm : m.ranks) by_stage.emplace(rm.stage, rm);
  m.workers = static_cast<int>(workers.size());
  m.ranks.clear();
  m.bytes_on_wire_per_iteration = 0;
  for (int r : workers) {
    RankMetrics rm = by_stage.at(run.plan.ranks[r].stage);
    rm.rank = r;
    rm.node = run.plan.ranks[r].where.node;
    m.bytes_on_wire_per_iteration += rm.bytes_sent;
    m.ranks.push_back(rm);
  }
  m.run.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  run.metrics = {m};
  return run;
}

std::optional<std::vector<Metrics>> run_symmetric(const Scenario& s) {
  if (!is_symmetric(s)) return std::nullopt;
  const auto t_start = std::chrono::steady_clock::now();
  if (s.job().strategy.kind == StrategyKind::Hybrid) return run_stage_representatives(s, PlanDetail::Blocks).metrics;
  Plan plan = compile_plan(s, PlanScope::Representatives);
  const cost::CostModel costs(s.cluster, plan);
  JobPlan& jp = plan.jobs.front();
  const RankProgram& rep = plan.ranks[jp.workers.front()];
  // Its two streams swept forward (stream_sweep.hpp), under contention (cost::compute_kept) too; a program of
  // another shape runs on the event loop.
  std::vector<OpRecord> records;
  const KeptProgram& kept = kept_program(costs, rep);
  if (kept.sweep) {
    std::vector<double> seconds = kept.seconds, host(rep.ops.size(), 0.0);
    for (size_t i = 0; i < rep.ops.size(); ++i) {
      if (const auto* col = std::get_if<CollectiveOp>(&rep.ops[i].body)) {
        seconds[i] = costs.collective_time(*col);
        host[i] = costs.collective_host_time(*col);
      }
    }
    records = kept.sweep->run(rep, seconds, host, cost::compute_kept_of(s.cluster, plan, rep.rank),
                              plan.warmup + plan.iterations, StreamSweep::Records::Runs);
  } else {
    Recorder rec;
    AnalyticalExecutor(s.cluster).run(plan, rec);
    records = rec.records();
  }

  // Metrics of the representative alone, then every worker as a copy of it.
  const std::vector<int> workers = jp.workers;
  jp.workers = {rep.rank};
  RunInfo info{std::string(engine_name(Engine::Analytical)), "closed_form", 0};
  WireBytes wire(plan);
  Metrics m = compute_metrics(plan, records, info, 0, &wire);
  jp.workers = workers;
  m.workers = static_cast<int>(workers.size());
  const RankMetrics first = m.ranks.front();
  m.ranks.clear();
  m.ranks.reserve(workers.size());
  m.bytes_on_wire_per_iteration = 0;
  // Each rank's bytes on the wire: its share of every collective of the representative's program, one pass
  // over each collective's group.
  std::vector<double> sent(plan.ranks.size(), 0.0);
  for (const Op& op : rep.ops) {
    if (const auto* c = std::get_if<CollectiveOp>(&op.body)) {
      wire.add_to_each(*c, sent);
    } else if (!is_compute(op.body)) {
      for (int r : workers) sent[static_cast<size_t>(r)] += wire(r, op.body);
    }
  }
  for (int r : workers) {
    RankMetrics& rm = m.ranks.emplace_back(first);
    rm.rank = r;
    rm.node = plan.ranks[r].where.node;
    rm.bytes_sent = sent[static_cast<size_t>(r)];
    m.bytes_on_wire_per_iteration += rm.bytes_sent;
  }
  m.run.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  std::vector<Metrics> out;
  out.push_back(std::move(m));
  return out;
}

std::vector<Metrics> run_analytical(const Scenario& s) {
  if (auto fast = run_symmetric(s)) return *fast;
  const Plan plan = compile_plan(s);
  Recorder recorder;
  recorder.reserve(static_cast<size_t>(plan.total_ops()) * (plan.iterations + plan.warmup));
  AnalyticalExecutor engine(s.cluster);
  const RunInfo info = engine.run(plan, recorder);
  return compute_job_metrics(plan, recorder.records(), info);
}

}  // namespace dtsim::analytical
