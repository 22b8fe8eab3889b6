// Formatting of the run summary: the cluster, then per job what it runs and its metrics.
#include "cli/summary.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/base/units.hpp"
#include "core/plan/hybrid/compile.hpp"
#include "core/scenario/sync_policy.hpp"
#include "models/parallel/schedule.hpp"

namespace dtsim::cli {
namespace {

void row(std::ostream& os, std::string_view key, const std::string& value) {
  os << fmt::format("  {:<26} {}\n", key, value);
}

std::string percent(double f) { return fmt::format("{:.1f} %", 100.0 * f); }

void fault_rows(std::ostream& os, const FaultReport& f);

// Waiting per worker iteration by cause, the causes that occur only.
std::string causes_text(const Metrics& m) {
  const WaitCauses& w = m.wait_by_cause;
  std::string out;
  auto add = [&](const char* name, double s) {
    if (s <= 0) return;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name, format_time(s));
  };
  add("barrier", w.barrier);
  add("staleness bound", w.staleness);
  add("server busy", w.server_busy);
  add("idle", w.idle);
  add("pipeline bubble", w.pipeline);
  add("failures", w.failure);
  return out.empty() ? "" : fmt::format(" ({} per iteration)", out);
}

std::string strategy_text(const Scenario& s, const JobSpec& job) {
  const StrategySpec& st = job.strategy;
  if (st.kind == StrategyKind::AllReduce) {
    // Backup workers exchange after the N-th gradient: never during backward.
    const bool overlap = st.overlap && job.sync.kind != SyncKind::Backup;
    return fmt::format("allreduce ({}, buckets of {}, overlap {})", st.algorithm, format_bytes(st.bucket_size),
                       overlap ? "on" : "off");
  }
  if (st.kind == StrategyKind::Hybrid) {
    const HybridSpec h = job_layout(s, job);
    std::string extras;
    if (h.context > 1) extras += fmt::format(" x c {}", h.context);
    if (h.expert > 1) extras += fmt::format(" (e {})", h.expert);
    const std::string schedule = h.schedule == PipelineSchedule::Interleaved
                                     ? fmt::format("interleaved v {}", h.virtual_stages)
                                     : std::string(schedule_name(h.schedule));
    return fmt::format(
        "hybrid (t {} x p {} x d {}{}; {}, {} micro-batches of {}; sequence parallel {}, recompute {}, "
        "ZeRO {}; {})",
        h.tensor, h.pipeline, h.data, extras, schedule, h.micro_batches(), h.micro_batch,
        h.sequence_parallel ? "on" : "off",
        h.recompute_every > 1 ? fmt::format("{} in 1 block of {}", recompute_name(h.recompute), h.recompute_every)
                              : std::string(recompute_name(h.recompute)),
        h.zero, st.algorithm);
  }
  return fmt::format("parameter server ({} shards, {}, overlap {})", st.ps_shards,
                     s.cluster.server_placement == ServerPlacement::Dedicated ? "dedicated hosts" : "colocated",
                     st.overlap ? "on" : "off");
}

// Who straggles and how (stragglers.*), "" when no one does: the slow workers named by their indices (the key takes
// indices, not a count), the jitter every worker draws, the workers a speed profile slows.
std::string stragglers_text(const StragglerSpec& st) {
  std::vector<std::string> parts;
  const auto workers = [](const std::vector<int>& w) {
    return fmt::format("{} {}", w.size() == 1 ? "worker" : "workers", fmt::join(w, ", "));
  };
  if (!st.slow_workers.empty() && st.slow_factor != 1.0) {
    parts.push_back(fmt::format("{} {} {:g}x slower", workers(st.slow_workers),
                                st.slow_workers.size() == 1 ? "computes" : "compute", st.slow_factor));
  }
  switch (st.jitter) {
    case Jitter::None: break;
    case Jitter::Lognormal:
      parts.push_back(fmt::format("lognormal jitter (sigma {:g}) on every worker", st.sigma));
      break;
    case Jitter::Exponential:
      parts.push_back(fmt::format("exponential jitter (mean {:g}) on every worker", st.tail_mean));
      break;
    case Jitter::Hiccup:
      parts.push_back(fmt::format("hiccups ({:g}x, probability {:g} an iteration) on every worker", st.hiccup_factor,
                                  st.hiccup_probability));
      break;
  }
  if (!st.speed_profile.factors.empty()) {
    parts.push_back(fmt::format("a speed profile on {}",
                                st.profile_workers.empty() ? "every worker" : workers(st.profile_workers)));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string batch_text(const Scenario& s, const JobSpec& job) {
  if (job.strategy.kind != StrategyKind::Hybrid) return fmt::format("batch {}/worker", job.model.batch_per_worker);
  const HybridSpec h = job_layout(s, job);
  return fmt::format("global batch {}", h.micro_batch * h.data * h.micro_batches());
}

void job_summary(std::ostream& os, const Scenario& s, const JobSpec& job, const Metrics& m) {
  const Workload& w = job.workload;
  if (!job.chakra.prefix.empty()) {
    // A replay: the traces say the work and the communication (docs/chakra.md).
    row(os, "workload",
        fmt::format("Chakra traces {}, {} workers{}", job.chakra.prefix, m.workers,
                    m.servers > 0 ? fmt::format(" + {} servers", m.servers) : ""));
  } else {
    // The model FLOPs MFU is measured by: a hybrid job's kernels, else its layer table.
    const double flops_per_sample =
        m.model_flops_per_sample > 0 ? m.model_flops_per_sample : w.fwd_flops_per_sample() + w.bwd_flops_per_sample();
    row(os, "model",
        fmt::format("{} ({:.4g} M params, {:.4g} GFLOP/sample fwd+bwd, {}, {})", w.name, w.total_params() / 1e6,
                    flops_per_sample / 1e9, batch_text(s, job), dtype_name(job.model.dtype)));
    const std::string sync = sync_text(sync_policy(job.sync.kind).title, job.sync);
    row(os, "strategy",
        fmt::format("{}, {} workers{}, {}", strategy_text(s, job), m.workers,
                    job.strategy.kind == StrategyKind::ParameterServer
                        ? fmt::format(" + {} server shards", job.strategy.ps_shards)
                        : "",
                    sync));
    if (const std::string slow = stragglers_text(job.stragglers); !slow.empty()) row(os, "stragglers", slow);
  }
  row(os, "iteration time mean", format_time(m.iteration_time.mean));
  row(os, "iteration time p50/p95/p99",
      fmt::format("{} / {} / {}", format_time(m.iteration_time.p50), format_time(m.iteration_time.p95),
                  format_time(m.iteration_time.p99)));
  row(os, "throughput",
      fmt::format("{:.1f} samples/s{}{}", m.throughput_samples_per_s,
                  m.tokens_per_s ? fmt::format(", {:.0f} tokens/s ({:.0f} per device)", *m.tokens_per_s,
                                               *m.tokens_per_s_per_device)
                                 : "",
                  m.asynchronous ? " (the sum of the workers' own rates)" : ""));
  if (m.mfu) {
    row(os, "FLOPs utilisation",
        fmt::format("MFU {}, HFU {} (of {} devices' {} {} peak; HFU counts recompute)", percent(*m.mfu),
                    percent(*m.hfu), m.workers, format_flop_rate(m.peak_flops), dtype_name(job.model.dtype)));
  }
  if (m.asynchronous) {
    row(os, "updates", fmt::format("{:.1f} model updates/s", m.updates_per_s));
    if (m.servers > 0) {  // staleness is counted on parameter-server shards
      row(os, "staleness",
          fmt::format("mean {:.2f}, p99 {:.0f}, max {:.0f} updates", m.staleness.mean, m.staleness.p99,
                      m.staleness.max));
    }
  }
  row(os, "compute", percent(m.compute_fraction));
  row(os, "exposed communication", percent(m.exposed_comm_fraction));
  row(os, "waiting", fmt::format("{}{}", percent(m.wait_fraction), causes_text(m)));
  row(os, "communication (total)", fmt::format("{} (overlapped or not)", percent(m.comm_fraction)));
  if (!m.memory.empty()) {
    row(os, "pipeline bubble", percent(m.bubble_fraction));
    const auto peak = std::max_element(m.memory.begin(), m.memory.end(),
                                       [](const auto& a, const auto& b) { return a.bytes.total() < b.bytes.total(); });
    const MemoryBreakdown& b = peak->bytes;
    row(os, "memory per rank (peak)",
        fmt::format("{} of {} on stage {}{} (parameters {}, gradients {}, optimizer {}, activations {}, "
                    "communication {})",
                    format_bytes(b.total()), format_bytes(m.device_memory), peak->stage,
                    b.total() > m.device_memory ? ": DOES NOT FIT" : "", format_bytes(b.parameters),
                    format_bytes(b.gradients), format_bytes(b.optimizer), format_bytes(b.activations),
                    format_bytes(b.communication)));
  }
  row(os, "bytes on the wire", fmt::format("{} per iteration", format_bytes(m.bytes_on_wire_per_iteration)));
  if (m.faults) fault_rows(os, *m.faults);
}

void fault_rows(std::ostream& os, const FaultReport& f) {
  const std::string interval = f.checkpoint_interval_s > 0
                                   ? fmt::format("every {} ({:.0f} iterations), {} each ({})",
                                                 format_time(f.checkpoint_interval_s), f.checkpoint_interval_iterations,
                                                 format_time(f.checkpoint_cost_s), format_bytes(f.checkpoint_bytes))
                                   : std::string("none");
  row(os, "checkpoints", interval);
  row(os, "failures",
      fmt::format("{:.2f} in {} ({} recovery{}, mean of {} trials)", f.failures, format_time(f.horizon_s), f.recovery,
                  f.job_mtbf_s > 0 ? fmt::format(", job MTBF {}", format_time(f.job_mtbf_s)) : "", f.trials));
  row(os, "goodput", fmt::format("{:.1f} samples/s ({} of throughput)", f.goodput, percent(f.goodput / f.throughput)));
  row(os, "time lost",
      fmt::format("checkpoints {}, lost work {}, detection {}, restart {}{}", percent(f.checkpoint_s / f.horizon_s),
                  percent(f.lost_work_s / f.horizon_s), percent(f.detection_s / f.horizon_s),
                  percent(f.restart_s / f.horizon_s),
                  f.idle_s > 0 ? fmt::format(", no workers {}", percent(f.idle_s / f.horizon_s)) : ""));
  if (f.young_daly_interval_s > 0) {
    row(os, "Young/Daly interval",
        fmt::format("{} (dtsim checkpoint suggests one by simulation)", format_time(f.young_daly_interval_s)));
  }
}

// The jobs table's sync suffix: ", ssp(2)", nothing for bsp.
std::string sync_column(const JobSpec& job) {
  const std::string_view column = sync_policy(job.sync.kind).column;
  return column.empty() ? "" : ", " + sync_text(column, job.sync);
}

std::string compression_text(const JobSpec& job) {
  const CompressionSpec& c = job.compression;
  const std::string_view name = method_name(c.method);
  switch (c.method) {
    case CompressionMethod::None: return "";
    case CompressionMethod::TopK:
    case CompressionMethod::RandomK: return fmt::format(", {} {:g}%", name, 100 * c.ratio);
    case CompressionMethod::PowerSgd: return fmt::format(", {} r{}", name, c.rank);
    case CompressionMethod::Fp16:
    case CompressionMethod::Bf16:
    case CompressionMethod::Int8:
    case CompressionMethod::Qsgd:
    case CompressionMethod::Sign: break;
  }
  return fmt::format(", {}", name);
}

// Several jobs side by side: one row each.
void jobs_table(std::ostream& os, const Scenario& s, const std::vector<Metrics>& jobs) {
  os << fmt::format("  {:<14} {:<46} {:>8} {:>11} {:>13} {:>10} {:>8} {:>8} {:>8} {:>9} {:>10} {:>10} {:>10}\n", "job",
                    "strategy", "workers", "iteration", "samples/s", "updates/s", "compute", "exposed", "waiting",
                    "staleness", "barrier", "bound", "server");
  for (size_t j = 0; j < jobs.size(); ++j) {
    const JobSpec& job = s.jobs[j];
    const Metrics& m = jobs[j];
    const std::string strategy =
        job.strategy.kind == StrategyKind::AllReduce
            ? fmt::format("allreduce {}{}{}", job.strategy.algorithm, sync_column(job), compression_text(job))
            : fmt::format("parameter server, {} shard{}{}", job.strategy.ps_shards,
                          job.strategy.ps_shards > 1 ? "s" : "", sync_column(job));
    const WaitCauses& w = m.wait_by_cause;
    os << fmt::format("  {:<14} {:<46} {:>8} {:>11} {:>13.1f} {:>10.1f} {:>8} {:>8} {:>8} {:>9} {:>10} {:>10} {:>10}\n",
                      job.name, fmt::format("{} ({})", strategy, job.workload.name), m.workers,
                      format_time(m.iteration_time.mean), m.throughput_samples_per_s, m.updates_per_s,
                      percent(m.compute_fraction), percent(m.exposed_comm_fraction), percent(m.wait_fraction),
                      m.asynchronous && m.servers > 0 ? fmt::format("{:.1f}", m.staleness.mean) : std::string("-"),
                      format_time(w.barrier), format_time(w.staleness), format_time(w.server_busy));
  }
  os << "  (compute, exposed communication and waiting: shares of a worker's iteration; barrier, bound (staleness) and "
        "server (busy): a worker's waiting per iteration by cause; per-rank details in metrics.json)\n";
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (!jobs[j].faults) continue;
    os << fmt::format("\n  job {} under failures:\n", s.jobs[j].name);
    fault_rows(os, *jobs[j].faults);
  }
}

}  // namespace

void print_summary(std::ostream& os, const Scenario& s, const std::vector<Metrics>& jobs) {
  const Metrics& first = jobs.front();
  os << fmt::format("dtsim {}: {}\n", DTSIM_VERSION, s.name);
  row(os, "cluster",
      fmt::format("{} nodes x {} {} ({} {}, NIC {} x {}, {})", s.cluster.nodes, s.cluster.devices_per_node,
                  s.cluster.device_names(), intra_link(s.cluster.intra_kind).nvlink ? "NVLink" : "PCIe",
                  format_rate(s.cluster.intra.rate), s.cluster.nics, format_rate(s.cluster.nic.rate),
                  topology_name(s.cluster.topology.kind)));
  const Scenario::LinkOrigins& from = s.link_origins;
  if (!from.intra.empty()) {
    row(os, "links from",
        from.intra == from.nic ? from.intra : fmt::format("NVLink: {}; NICs: {}", from.intra, from.nic));
  }
  row(os, "engine",
      fmt::format("{} ({}), {} iterations after {} warm-up", first.run.engine, first.run.fidelity, first.iterations,
                  first.warmup));
  if (jobs.size() == 1) {
    os << "\n";
    job_summary(os, s, s.jobs[0], jobs[0]);
  } else {
    os << "\n";
    jobs_table(os, s, jobs);
  }
  os << "\n";
  double simulated = 0;
  for (const auto& m : jobs) simulated = std::max(simulated, m.simulated_time_s);
  row(os, "simulated time", format_time(simulated));
  row(os, "wall time", format_time(first.run.wall_time_s));
}

}  // namespace dtsim::cli
