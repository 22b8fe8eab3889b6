// Computing metrics from op records: per-iteration ends, interval unions per rank.
#include "core/run/metrics.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "core/base/intervals.hpp"

namespace dtsim {
namespace {

// Length of a minus b (both merged).
double length_minus(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double covered = 0;
  size_t j = 0;
  for (const auto& [lo, hi] : a) {
    while (j < b.size() && b[j].second <= lo) ++j;
    for (size_t k = j; k < b.size() && b[k].first < hi; ++k) {
      covered += std::max(0.0, std::min(hi, b[k].second) - std::max(lo, b[k].first));
    }
  }
  return intervals_length(a) - covered;
}

// A composite's record on one rank (Plan::composites).
struct CompositeRecord {
  double start = 0;
  double end = 0;
  int composite = 0;
};

// A rank's busy time split into compute and communication, with its composites' records folded in:
// a composite that overlaps nothing else adds its parts' compute and communication as sums (its own
// parts never overlap each other); one that does is split into its parts' intervals (scaled to
// the record: a straggler's slowdown stretches every part).
struct RankIntervals {
  std::vector<Interval> compute;
  std::vector<Interval> comm;
  std::map<std::string_view, std::vector<Interval>> comm_by_kind;  // comm, split by comm_kind
  std::vector<CompositeRecord> composites;
  KindSeconds alone_by_kind;  // exposed communication of composites that overlap nothing outside them

  // (compute, communication, exposed communication), each the length of a union.
  std::tuple<double, double, double> lengths(const std::vector<CompositeTiming>& timings) {
    merge_intervals(compute);
    merge_intervals(comm);
    std::sort(composites.begin(), composites.end(),
              [](const CompositeRecord& a, const CompositeRecord& b) { return a.start < b.start; });
    const auto overlaps = [](const std::vector<Interval>& merged, double a, double b) {
      const auto it = std::lower_bound(merged.begin(), merged.end(), Interval{a, a},
                                       [](const Interval& x, const Interval& y) { return x.second <= y.first; });
      return it != merged.end() && it->first < b;
    };
    double whole_compute = 0, whole_comm = 0, whole_exposed = 0;
    std::vector<Interval> more_compute, more_comm;
    for (size_t k = 0; k < composites.size(); ++k) {
      const CompositeRecord& r = composites[k];
      const CompositeTiming& t = timings[static_cast<size_t>(r.composite)];
      const bool alone = !overlaps(compute, r.start, r.end) && !overlaps(comm, r.start, r.end) &&
                         (k == 0 || composites[k - 1].end <= r.start) &&
                         (k + 1 == composites.size() || r.end <= composites[k + 1].start);
      const double scale = t.duration > 0 ? (r.end - r.start) / t.duration : 0.0;
      if (alone) {
        whole_compute += t.compute_s * scale;
        whole_comm += t.comm_s * scale;
        whole_exposed += t.exposed_comm_s * scale;
        for (size_t i = 0; i < t.comm.size(); ++i) alone_by_kind[t.comm_kinds[i]] += t.comm_exposed[i] * scale;
        continue;
      }
      for (const auto& [a, b] : t.compute) more_compute.emplace_back(r.start + a * scale, r.start + b * scale);
      for (size_t i = 0; i < t.comm.size(); ++i) {
        const Interval part{r.start + t.comm[i].first * scale, r.start + t.comm[i].second * scale};
        more_comm.push_back(part);
        comm_by_kind[t.comm_kinds[i]].push_back(part);
      }
    }
    if (!more_compute.empty() || !more_comm.empty()) {
      compute.insert(compute.end(), more_compute.begin(), more_compute.end());
      comm.insert(comm.end(), more_comm.begin(), more_comm.end());
      merge_intervals(compute);
      merge_intervals(comm);
    }
    return {intervals_length(compute) + whole_compute, intervals_length(comm) + whole_comm,
            length_minus(comm, compute) + whole_exposed};
  }

  // After lengths(): each kind's communication not under compute.
  KindSeconds exposed_by_kind() {
    KindSeconds out;
    for (auto& [kind, intervals] : comm_by_kind) {
      merge_intervals(intervals);
      out[kind] = length_minus(intervals, compute);
    }
    for (const auto& [kind, seconds] : alone_by_kind) out[kind] += seconds;
    return out;
  }
};

}  // namespace

Stats summarize(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto pct = [&v](double p) {
    const double pos = p * static_cast<double>(v.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  s.p50 = pct(0.50);
  s.p95 = pct(0.95);
  s.p99 = pct(0.99);
  s.min = v.front();
  s.max = v.back();
  return s;
}

double WireBytes::operator()(int rank, const OpBody& body) {
  if (const auto* s = std::get_if<SendOp>(&body)) return s->bytes;
  // Gossip: the rank that starts an exchange is charged both directions (its peer's program has no op for it).
  if (const auto* g = std::get_if<GossipOp>(&body)) return 2 * g->bytes;
  if (const auto* seg = std::get_if<ComputeOp>(&body); seg && seg->composite >= 0) {
    const auto [at, added] = composite_bytes_.try_emplace(seg->composite, 0.0);
    if (added) {
      for (const Op& part : plan_.composites[seg->composite].parts) at->second += (*this)(rank, part.body);
    }
    return at->second;
  }
  const auto* c = std::get_if<CollectiveOp>(&body);
  if (!c) return 0;
  const CommGroup& group = plan_.groups[c->group];
  const std::vector<double>& per_rank = unit_bytes(*c);
  const auto pos = std::lower_bound(group.ranks.begin(), group.ranks.end(), rank);
  return pos != group.ranks.end() && *pos == rank ? per_rank[pos - group.ranks.begin()] * (c->bytes / kUnitBytes) : 0.0;
}

void WireBytes::add_to_each(const CollectiveOp& c, std::vector<double>& by_rank) {
  const std::vector<int>& ranks = plan_.groups[c.group].ranks;
  const std::vector<double>& per_rank = unit_bytes(c);
  for (size_t p = 0; p < ranks.size(); ++p)
    by_rank[static_cast<size_t>(ranks[p])] += per_rank[p] * (c.bytes / kUnitBytes);
}

const std::vector<double>& WireBytes::unit_bytes(const CollectiveOp& c) {
  // What a rank sends is proportional to S (chunking splits the bytes, never adds to them), so
  // one evaluation per group, kind and algorithm serves every bucket size.
  auto& per_rank = cache_[std::make_tuple(c.group, c.kind, c.algorithm)];
  if (per_rank.empty()) {
    const CommGroup& group = plan_.groups[c.group];
    const GroupShape shape{static_cast<int>(group.ranks.size()), group.per_node, 0};
    per_rank = bytes_sent(c.algorithm->flow_phases(c.kind, shape, kUnitBytes), shape.size);
  }
  return per_rank;
}

namespace {

// Staleness of every measured update of an asynchronous job, and each worker's own sample rate.
// `spans`: each rank's measured window (end of its warm-up, end of its last op).
void async_metrics(const Plan& plan, const std::vector<OpRecord>& records, int job,
                   const std::vector<std::pair<double, double>>& spans, Metrics& m) {
  const JobPlan& jp = plan.jobs[job];
  // Updates per shard: (start, end, worker, iteration), from the server ranks' update ops.
  std::map<int, std::vector<std::tuple<double, double, int, int>>> updates;
  for (const auto& r : records) {
    const RankProgram& rank = plan.ranks[r.rank];
    if (rank.job == job && rank.role == Role::Server && std::holds_alternative<UpdateOp>(rank.ops[r.op].body)) {
      updates[rank.shard].emplace_back(r.start, r.end, rank.serves, r.iteration);
    }
  }
  std::vector<double> staleness;
  for (auto& [shard, list] : updates) {
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return std::get<1>(a) < std::get<1>(b); });
    std::map<int, double> last_own;  // worker -> end of its previous update of this shard
    std::vector<double> ends;
    for (const auto& u : list) ends.push_back(std::get<1>(u));
    for (const auto& [start, end, worker, iteration] : list) {
      const double pulled = last_own.count(worker) ? last_own[worker] : -1.0;
      // Updates that ended after this worker's previous one and before this one began.
      const auto lo = std::upper_bound(ends.begin(), ends.end(), pulled);
      const auto hi = std::upper_bound(ends.begin(), ends.end(), start);
      if (iteration >= plan.warmup) staleness.push_back(static_cast<double>(std::max<long>(0, hi - lo)));
      last_own[worker] = end;
    }
  }
  m.staleness = summarize(staleness);
  for (double s : staleness) {
    const auto bin = static_cast<size_t>(s);
    if (m.staleness_histogram.size() <= bin) m.staleness_histogram.resize(bin + 1, 0);
    ++m.staleness_histogram[bin];
  }
  const double per_worker = jp.samples_per_iteration / static_cast<double>(jp.workers.size());
  m.throughput_samples_per_s = 0;
  m.updates_per_s = 0;
  for (int worker : jp.workers) {
    const double span = spans[worker].second - spans[worker].first;
    if (span <= 0) continue;
    m.throughput_samples_per_s += per_worker * plan.iterations / span;
    m.updates_per_s += plan.iterations / span;
  }
}

// Tokens/s, MFU and HFU from the throughput (core/plan/job_flops.hpp); left absent where the plan has no figure.
void utilisation(const JobPlan& jp, Metrics& m) {
  if (jp.tokens_per_sample > 0 && jp.devices > 0) {
    m.tokens_per_s = m.throughput_samples_per_s * jp.tokens_per_sample;
    m.tokens_per_s_per_device = *m.tokens_per_s / jp.devices;
  }
  m.peak_flops = jp.peak_flops;
  m.model_flops_per_sample = jp.model_flops_per_sample;
  if (jp.peak_flops <= 0 || jp.model_flops_per_sample <= 0 || jp.samples_per_iteration <= 0) return;
  m.mfu = jp.model_flops_per_sample * m.throughput_samples_per_s / jp.peak_flops;
  const double recompute_per_sample = jp.recompute_flops_per_iteration / jp.samples_per_iteration;
  m.hfu = (jp.model_flops_per_sample + recompute_per_sample) * m.throughput_samples_per_s / jp.peak_flops;
}

}  // namespace

std::string_view comm_kind(const Plan& plan, int rank, const OpBody& body) {
  if (const auto* c = std::get_if<CollectiveOp>(&body)) return group_kind_name(plan.groups[c->group].kind);
  if (std::holds_alternative<SendOp>(body) || std::holds_alternative<RecvOp>(body)) {
    return plan.ranks[rank].stage >= 0 ? "pipeline" : "p2p";
  }
  if (std::holds_alternative<GossipOp>(body)) return "gossip";
  return "other";
}

Metrics compute_metrics(const Plan& plan, const std::vector<OpRecord>& records, const RunInfo& info, int job,
                        WireBytes* wire) {
  const std::vector<CompositeTiming>& composites = info.composites;
  if (composites.size() != plan.composites.size()) {
    throw RuntimeError(fmt::format("metrics: the plan has {} composites, the engine timed {}", plan.composites.size(),
                                   composites.size()));
  }
  const JobPlan& jp = plan.jobs[job];
  Metrics m;
  m.scenario = plan.name;
  m.job = jp.name;
  m.run = info;
  m.workers = static_cast<int>(jp.workers.size());
  m.servers = static_cast<int>(jp.servers.size());
  m.warmup = plan.warmup;
  m.iterations = plan.iterations;
  const int total = plan.warmup + plan.iterations;
  std::vector<double> iteration_end(total, 0.0);
  for (const auto& r : records) {
    if (plan.ranks[r.rank].job == job) iteration_end[r.iteration] = std::max(iteration_end[r.iteration], r.end);
  }
  for (int k = 1; k < total; ++k) iteration_end[k] = std::max(iteration_end[k], iteration_end[k - 1]);
  std::vector<double> times;
  for (int k = plan.warmup; k < total; ++k) times.push_back(iteration_end[k] - (k > 0 ? iteration_end[k - 1] : 0.0));
  m.iteration_time = summarize(times);
  m.simulated_time_s = total > 0 ? iteration_end[total - 1] : 0.0;
  m.throughput_samples_per_s = m.iteration_time.mean > 0 ? jp.samples_per_iteration / m.iteration_time.mean : 0;

  const double window_start = plan.warmup > 0 ? iteration_end[plan.warmup - 1] : 0.0;
  const double window = m.simulated_time_s - window_start;
  // The ranks measured (the job's workers, then its servers), and each one's slot in that list.
  std::vector<int> ranks = jp.workers;
  ranks.insert(ranks.end(), jp.servers.begin(), jp.servers.end());
  std::vector<int> slot(plan.ranks.size(), -1);
  for (size_t k = 0; k < ranks.size(); ++k) slot[static_cast<size_t>(ranks[k])] = static_cast<int>(k);
  std::vector<RankIntervals> busy(ranks.size());
  std::vector<double> bytes(ranks.size(), 0.0);
  std::vector<std::pair<double, double>> spans(plan.ranks.size(), {0.0, 0.0});
  std::vector<std::vector<OpRecord>> measured(ranks.size());
  std::optional<WireBytes> made_here;
  WireBytes& wire_bytes = wire ? *wire : made_here.emplace(plan);
  for (const auto& r : records) {
    if (plan.ranks[r.rank].job != job) continue;
    auto& [warm, last] = spans[r.rank];
    if (r.iteration < plan.warmup) warm = std::max(warm, r.end);
    last = std::max(last, r.end);
    const int k = slot[static_cast<size_t>(r.rank)];
    if (r.iteration < plan.warmup || k < 0) continue;
    const Op& op = plan.ranks[r.rank].ops[r.op];
    measured[k].push_back(r);
    // Waiting at a staleness bound or for a backup quorum.
    if (std::holds_alternative<GateOp>(op.body) || std::holds_alternative<QuorumOp>(op.body)) continue;
    if (const auto* c = std::get_if<ComputeOp>(&op.body); c && c->composite >= 0) {
      busy[k].composites.push_back({r.start, r.end, c->composite});
    } else {
      (is_compute(op.body) ? busy[k].compute : busy[k].comm).emplace_back(r.start, r.end);
      if (!is_compute(op.body)) busy[k].comm_by_kind[comm_kind(plan, r.rank, op.body)].emplace_back(r.start, r.end);
    }
    bytes[k] += wire_bytes(r.rank, op.body);
  }
  const double per_it = 1.0 / plan.iterations;
  for (size_t k = 0; k < ranks.size(); ++k) {
    const int i = ranks[k];
    const double lo = jp.asynchronous ? spans[i].first : window_start;
    const double hi = jp.asynchronous ? spans[i].second : m.simulated_time_s;
    const auto [compute_s, comm_s, exposed_s] = busy[k].lengths(composites);
    RankMetrics rm;
    rm.rank = plan.ranks[i].rank;
    rm.role = plan.ranks[i].role;
    rm.node = plan.ranks[i].where.node;
    rm.stage = plan.ranks[i].stage;
    rm.compute_s = compute_s * per_it;
    rm.comm_s = comm_s * per_it;
    rm.exposed_comm_s = exposed_s * per_it;
    for (const auto& [kind, exposed] : busy[k].exposed_by_kind()) rm.exposed_by_kind[kind] = exposed * per_it;
    // Asynchronous workers each run their own iterations: each is measured over its own window.
    const double own = jp.asynchronous ? spans[i].second - spans[i].first : window;
    rm.wait_s = std::max(0.0, own * per_it - rm.compute_s - rm.exposed_comm_s);
    rm.wait_by_cause = wait_causes(plan, i, measured[k], lo, hi, !jp.asynchronous).scaled(per_it);
    rm.bytes_sent = bytes[k] * per_it;
    m.bytes_on_wire_per_iteration += rm.bytes_sent;
    if (rm.role == Role::Worker && own > 0) {
      const double it = own * per_it;
      m.compute_fraction += rm.compute_s / it / m.workers;
      m.comm_fraction += rm.comm_s / it / m.workers;
      m.exposed_comm_fraction += rm.exposed_comm_s / it / m.workers;
      m.wait_fraction += rm.wait_s / it / m.workers;
      m.wait_by_cause += rm.wait_by_cause.scaled(1.0 / m.workers);
      m.bubble_fraction += rm.wait_by_cause.pipeline / it / m.workers;
      for (const auto& [kind, exposed] : rm.exposed_by_kind) m.exposed_by_kind[kind] += exposed / m.workers;
    }
    m.ranks.push_back(rm);
  }
  m.memory = jp.memory;
  m.device_memory = jp.device_memory;
  m.updates_per_s = m.iteration_time.mean > 0 ? 1.0 / m.iteration_time.mean : 0;
  m.staleness = summarize({0.0});
  m.asynchronous = jp.asynchronous;
  if (jp.asynchronous) async_metrics(plan, records, job, spans, m);
  utilisation(jp, m);
  return m;
}

std::vector<Metrics> compute_job_metrics(const Plan& plan, const std::vector<OpRecord>& records, const RunInfo& info) {
  std::vector<Metrics> out;
  for (size_t j = 0; j < plan.jobs.size(); ++j)
    out.push_back(compute_metrics(plan, records, info, static_cast<int>(j)));
  return out;
}

double Metrics::peak_memory() const {
  double peak = 0;
  for (const StageMemory& s : memory) peak = std::max(peak, s.bytes.total());
  return peak;
}

double failure_wait_per_iteration(const Metrics& m) {
  if (!m.faults || m.faults->useful_s <= 0 || m.iteration_time.mean <= 0) return 0;
  const FaultReport& f = *m.faults;
  return (f.lost_work_s + f.detection_s + f.restart_s + f.idle_s) / (f.useful_s / m.iteration_time.mean);
}

namespace {

nlohmann::json causes_json(const WaitCauses& w, bool job) {
  nlohmann::json out{{"barrier", w.barrier},
                     {"staleness_bound", w.staleness},
                     {"server_busy", w.server_busy},
                     {"idle", w.idle},
                     {"pipeline_bubble", w.pipeline}};
  if (job) out["failure"] = w.failure;
  return out;
}

nlohmann::json or_null(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

// Peak bytes per rank of each pipeline stage, by category (models/parallel/memory.hpp).
nlohmann::json memory_json(const Metrics& m) {
  nlohmann::json stages = nlohmann::json::array();
  for (const StageMemory& s : m.memory) {
    stages.push_back({{"stage", s.stage},
                      {"parameters_bytes", s.bytes.parameters},
                      {"gradients_bytes", s.bytes.gradients},
                      {"optimizer_bytes", s.bytes.optimizer},
                      {"activations_bytes", s.bytes.activations},
                      {"communication_bytes", s.bytes.communication},
                      {"total_bytes", s.bytes.total()},
                      {"micro_batches_in_flight", s.micro_batches_in_flight}});
  }
  return {{"device_bytes", m.device_memory},
          {"peak_bytes", m.peak_memory()},
          {"fits", m.peak_memory() <= m.device_memory},
          {"per_stage", stages}};
}

}  // namespace

nlohmann::json metrics_to_json(const Metrics& m) {
  auto stats = [](const Stats& s) {
    return nlohmann::json{{"mean", s.mean}, {"p50", s.p50}, {"p95", s.p95},
                          {"p99", s.p99},   {"min", s.min}, {"max", s.max}};
  };
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : m.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"role", r.role == Role::Worker ? "worker" : "server"},
                     {"node", r.node},
                     {"compute_s", r.compute_s},
                     {"comm_s", r.comm_s},
                     {"exposed_comm_s", r.exposed_comm_s},
                     {"wait_s", r.wait_s},
                     {"wait_by_cause_s", causes_json(r.wait_by_cause, false)},
                     {"bytes_sent", r.bytes_sent},
                     {"exposed_comm_by_kind_s", r.exposed_by_kind}});
    if (r.stage >= 0 && static_cast<size_t>(r.stage) < m.memory.size()) {
      ranks.back()["stage"] = r.stage;
      ranks.back()["memory_peak_bytes"] = m.memory[static_cast<size_t>(r.stage)].bytes.total();
    }
  }
  nlohmann::json out{{"schema_version", kMetricsSchemaVersion},
                     {"scenario", m.scenario},
                     {"job", m.job},
                     {"engine", m.run.engine},
                     {"fidelity", m.run.fidelity},
                     {"workers", m.workers},
                     {"servers", m.servers},
                     {"iterations", m.iterations},
                     {"warmup", m.warmup},
                     {"iteration_time_s", stats(m.iteration_time)},
                     {"throughput_samples_per_s", m.throughput_samples_per_s},
                     {"tokens_per_s", or_null(m.tokens_per_s)},
                     {"tokens_per_s_per_device", or_null(m.tokens_per_s_per_device)},
                     {"mfu", or_null(m.mfu)},
                     {"hfu", or_null(m.hfu)},
                     {"model_flops_per_sample", m.model_flops_per_sample},
                     {"peak_flops", m.peak_flops},
                     {"compute_fraction", m.compute_fraction},
                     {"comm_fraction", m.comm_fraction},
                     {"exposed_comm_fraction", m.exposed_comm_fraction},
                     {"exposed_comm_by_kind_s", m.exposed_by_kind},
                     {"wait_fraction", m.wait_fraction},
                     {"wait_by_cause_s", causes_json(m.wait_by_cause, true)},
                     {"bytes_on_wire_per_iteration", m.bytes_on_wire_per_iteration},
                     {"updates_per_s", m.updates_per_s},
                     {"synchronous", !m.asynchronous},
                     {"staleness",
                      {{"mean", m.staleness.mean},
                       {"p50", m.staleness.p50},
                       {"p99", m.staleness.p99},
                       {"max", m.staleness.max},
                       {"histogram", m.staleness_histogram}}},
                     {"simulated_time_s", m.simulated_time_s},
                     {"wall_time_s", m.run.wall_time_s},
                     {"per_rank", ranks}};
  if (m.faults) out["faults"] = fault_report_json(*m.faults);
  if (!m.memory.empty()) {
    out["bubble_fraction"] = m.bubble_fraction;
    out["memory"] = memory_json(m);
  }
  return out;
}

}  // namespace dtsim

namespace dtsim {

nlohmann::json run_metrics_json(const std::vector<Metrics>& jobs) {
  nlohmann::json out = metrics_to_json(jobs.front());
  nlohmann::json list = nlohmann::json::array();
  for (const auto& m : jobs) list.push_back(metrics_to_json(m));
  out["jobs"] = list;
  return out;
}

}  // namespace dtsim
