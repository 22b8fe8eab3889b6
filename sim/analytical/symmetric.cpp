// One representative worker, evaluated in program order: an op starts when its deps and the op
// before it on its stream have ended (Posted ops wait for deps only) and ends after its cost.
// This is the same arithmetic, in the same order, as the event loop in engine.cpp.
#include "sim/analytical/symmetric.hpp"

#include <algorithm>
#include <chrono>
#include <map>

#include "core/plan/compiler.hpp"
#include "sim/analytical/engine.hpp"
#include "sim/cost/cores.hpp"
#include "sim/cost/cost_model.hpp"

namespace dtsim::analytical {
namespace {

double op_cost(const cost::CostModel& costs, const RankProgram& rank, const Op& op) {
  if (const auto* c = std::get_if<ComputeOp>(&op.body)) return costs.compute_time(rank, *c);
  if (const auto* u = std::get_if<UpdateOp>(&op.body)) return costs.update_time(rank, *u);
  if (const auto* col = std::get_if<CollectiveOp>(&op.body)) return costs.collective_time(*col);
  throw RuntimeError("symmetric analytical path: point-to-point ops are not symmetric");
}

// Records of the representative rank over every iteration.
std::vector<OpRecord> evaluate(const Plan& plan, const RankProgram& rank, const cost::CostModel& costs) {
  const size_t n = rank.ops.size();
  std::vector<double> cost(n), end(n);
  for (size_t i = 0; i < n; ++i) cost[i] = op_cost(costs, rank, rank.ops[i]);
  std::vector<OpRecord> records;
  const int total = plan.warmup + plan.iterations;
  records.reserve(n * static_cast<size_t>(total));
  double t0 = 0;
  for (int it = 0; it < total; ++it) {
    int last_on_stream[2] = {-1, -1};
    double iteration_end = t0;
    for (size_t i = 0; i < n; ++i) {
      const Op& op = rank.ops[i];
      bool has_pred = !op.deps.empty();
      double start = 0;
      for (int d : op.deps) start = std::max(start, end[d]);
      if (op.stream != Stream::Posted) {
        int& last = last_on_stream[static_cast<int>(op.stream)];
        if (last >= 0) {
          start = std::max(start, end[last]);
          has_pred = true;
        }
        last = static_cast<int>(i);
      }
      if (!has_pred) start = t0;
      end[i] = start + cost[i];
      iteration_end = std::max(iteration_end, end[i]);
      records.push_back(OpRecord{rank.rank, it, static_cast<int>(i), start, end[i]});
    }
    t0 = iteration_end;
  }
  return records;
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
  const auto t_start = std::chrono::steady_clock::now();
  StageRun run{compile_plan(s, PlanScope::Representatives, detail), {}, {}};
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
  Metrics m = compute_metrics(run.plan, run.records, RunInfo{"analytical", "closed_form", 0, info.composites}, 0);
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
  // Under contention (cost::compute_kept) a compute op's end depends on the communication in flight
  // beside it, which program order cannot see: the representative then runs on the event loop.
  std::vector<OpRecord> records;
  if (cost::compute_kept(s.cluster, plan)[static_cast<size_t>(rep.rank)] < 1) {
    Recorder rec;
    AnalyticalExecutor(s.cluster).run(plan, rec);
    records = rec.records();
  } else {
    records = evaluate(plan, rep, costs);
  }

  // Metrics of the representative alone, then every worker as a copy of it.
  const std::vector<int> workers = jp.workers;
  jp.workers = {rep.rank};
  RunInfo info{"analytical", "closed_form", 0};
  Metrics m = compute_metrics(plan, records, info, 0);
  jp.workers = workers;
  m.workers = static_cast<int>(workers.size());
  const RankMetrics first = m.ranks.front();
  m.ranks.clear();
  m.ranks.reserve(workers.size());
  m.bytes_on_wire_per_iteration = 0;
  WireBytes wire(plan);
  std::vector<const OpBody*> sends;  // the ops that put bytes on the wire
  for (const Op& op : rep.ops) {
    if (!std::holds_alternative<ComputeOp>(op.body) && !std::holds_alternative<UpdateOp>(op.body))
      sends.push_back(&op.body);
  }
  for (int r : workers) {
    RankMetrics rm = first;
    rm.rank = r;
    rm.node = plan.ranks[r].where.node;
    rm.bytes_sent = 0;
    for (const OpBody* body : sends) rm.bytes_sent += wire(r, *body);
    m.bytes_on_wire_per_iteration += rm.bytes_sent;
    m.ranks.push_back(rm);
  }
  m.run.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return std::vector<Metrics>{m};
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
