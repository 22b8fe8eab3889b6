// One representative worker, evaluated in program order: an op starts when its deps and the op
// before it on its stream have ended (Posted ops wait for deps only) and ends after its cost.
// This is the same arithmetic, in the same order, as the event loop in engine.cpp.
#include "sim/analytical/symmetric.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <tuple>

#include "core/plan/compiler.hpp"
#include "sim/analytical/engine.hpp"
#include "sim/analytical/op_graph.hpp"
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

// Under contention: the representative alone, on the full engine's rules for it (engine.cpp: a compute op runs
// at `kept` of its rate while a communication op of its rank is in flight and is retimed when one starts or ends;
// a collective starts after its host work, its whole group there at once, and lasts its closed form), with the
// engine's arithmetic in the engine's event order: (time, order made). nullopt for programs it does not cover
// (posted ops, sends, gates, ops that skip iterations): those run on the engine.
std::optional<std::vector<OpRecord>> evaluate_contended(const Plan& plan, const RankProgram& rank,
                                                        const cost::CostModel& costs, double kept) {
  const size_t n = rank.ops.size();
  for (const Op& op : rank.ops) {
    const bool kind = is_compute(op.body) || std::holds_alternative<CollectiveOp>(op.body);
    if (!kind || op.stream == Stream::Posted || op.period > 1) return std::nullopt;
    if (const auto* c = std::get_if<ComputeOp>(&op.body); c && c->composite >= 0) return std::nullopt;
  }
  const OpGraph graph = build_op_graph(rank);
  std::vector<double> seconds(n, 0), host(n, 0);
  for (size_t i = 0; i < n; ++i) {
    seconds[i] = op_cost(costs, rank, rank.ops[i]);
    if (const auto* col = std::get_if<CollectiveOp>(&rank.ops[i].body)) host[i] = costs.collective_host_time(*col);
  }
  struct Event {
    double time;
    long seq;
    bool done;
    int op;
    double start;
    bool operator>(const Event& o) const { return std::tie(time, seq) > std::tie(o.time, o.seq); }
  };
  std::vector<Event> heap;
  long seq = 0;
  const auto push = [&](double time, bool done, int op, double start) {
    heap.push_back(Event{time, seq, done, op, start});
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
    return seq++;
  };
  // The device: its op, the done event it scheduled, and the work left at `since` (full-rate seconds).
  int running = -1;
  long running_seq = -1;
  double run_start = 0, since = 0, work = 0;
  std::deque<std::pair<int, double>> waiting;
  int communicating = 0;
  std::vector<long> comm_seq(n, -1);  // a communication op's done event while in flight
  std::vector<char> past_host(n, 0);
  std::vector<char> cancelled;  // by seq: a device done event rescheduled
  const auto rate = [&] { return communicating > 0 ? kept : 1.0; };
  const auto schedule = [&] {
    running_seq = push(since + work / rate(), true, running, run_start);
    if (cancelled.size() <= static_cast<size_t>(running_seq)) cancelled.resize(running_seq + 1, 0);
  };
  const auto start_op = [&](int op, double now, double w) {
    running = op;
    run_start = since = now;
    work = w;
    schedule();
  };
  const auto retime = [&](double now) {
    if (running < 0) return;
    if (now > since) {
      const double old_rate = communicating > 0 ? 1.0 : kept;  // before this change
      work = std::max(0.0, work - old_rate * (now - since));
      since = now;
    }
    cancelled[running_seq] = 1;
    schedule();
  };
  std::vector<OpRecord> records;
  const int total = plan.warmup + plan.iterations;
  records.reserve(n * static_cast<size_t>(total));
  std::vector<int> remaining;
  int done_count = 0;
  int iteration = 0;
  const auto start_iteration = [&](double t) {
    if (iteration >= total) return;
    remaining = graph.preds;
    done_count = 0;
    for (size_t i = 0; i < n; ++i) {
      if (remaining[i] == 0) push(t, false, static_cast<int>(i), 0);
    }
  };
  start_iteration(0.0);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    const Event e = heap.back();
    heap.pop_back();
    const int i = e.op;
    if (!e.done) {
      if (std::holds_alternative<CollectiveOp>(rank.ops[i].body)) {
        if (host[i] > 0 && !past_host[i]) {
          past_host[i] = 1;
          push(e.time + host[i], false, i, 0);
          continue;
        }
        past_host[i] = 0;
        const double end = e.time + seconds[i];
        const long s = push(end, true, i, e.time);
        if (end > e.time) {
          comm_seq[i] = s;
          if (communicating++ == 0) retime(e.time);
        }
      } else if (seconds[i] <= 0) {
        push(e.time, true, i, e.time);
      } else if (running >= 0) {
        waiting.emplace_back(i, seconds[i]);
      } else {
        start_op(i, e.time, seconds[i]);
      }
      continue;
    }
    if (static_cast<size_t>(e.seq) < cancelled.size() && cancelled[e.seq]) continue;
    if (comm_seq[i] == e.seq) {
      comm_seq[i] = -1;
      if (--communicating == 0) retime(e.time);
    }
    if (running_seq == e.seq) {
      running = -1;
      running_seq = -1;
      if (!waiting.empty()) {
        const auto [op, w] = waiting.front();
        waiting.pop_front();
        start_op(op, e.time, w);
      }
    }
    records.push_back(OpRecord{rank.rank, iteration, i, e.start, e.time});
    for (int succ : graph.succs(i)) {
      if (--remaining[static_cast<size_t>(succ)] == 0) push(e.time, false, succ, 0);
    }
    if (++done_count == static_cast<int>(n)) {
      ++iteration;
      start_iteration(e.time);
    }
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
  if (const double kept = cost::compute_kept_of(s.cluster, plan, rep.rank); kept < 1) {
    if (auto contended = evaluate_contended(plan, rep, costs, kept)) {
      records = std::move(*contended);
    } else {
      Recorder rec;
      AnalyticalExecutor(s.cluster).run(plan, rec);
      records = rec.records();
    }
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
  // Each rank's bytes on the wire: its share of every collective of the representative's program, one pass
  // over each collective's group.
  WireBytes wire(plan);
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
