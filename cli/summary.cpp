// Formatting of the run summary: the job, then the headline metrics, then where time goes.
#include "cli/summary.hpp"

#include <fmt/format.h>

#include "models/units.hpp"

namespace dtsim::cli {
namespace {

void row(std::ostream& os, std::string_view key, const std::string& value) {
  os << fmt::format("  {:<26} {}\n", key, value);
}

std::string percent(double f) { return fmt::format("{:.1f} %", 100.0 * f); }

}  // namespace

void print_summary(std::ostream& os, const Scenario& s, const Plan& plan, const Metrics& m) {
  os << fmt::format("dtsim {}: {}\n", DTSIM_VERSION, s.name);
  row(os, "model", fmt::format("{} ({:.4g} M params, {:.4g} GFLOP/sample fwd+bwd, batch {}/worker, {})",
                               s.workload.name, s.workload.total_params() / 1e6,
                               (s.workload.fwd_flops_per_sample() + s.workload.bwd_flops_per_sample()) / 1e9,
                               s.model.batch_per_worker, dtype_name(s.model.dtype)));
  row(os, "cluster", fmt::format("{} nodes x {} {} ({} {}, NIC {} x {})", s.cluster.nodes, s.cluster.devices_per_node,
                                 s.cluster.device.name,
                                 s.cluster.intra_kind == IntraLinkKind::NvLink ? "NVLink" : "PCIe",
                                 format_rate(s.cluster.intra.rate), s.cluster.nics, format_rate(s.cluster.nic.rate)));
  const std::string strategy =
      s.strategy.kind == StrategyKind::AllReduce
          ? fmt::format("allreduce ({}, buckets of {}, overlap {})", s.strategy.algorithm,
                        format_bytes(s.strategy.bucket_size), s.strategy.overlap ? "on" : "off")
          : fmt::format("parameter server ({} shards, {}, overlap {})", s.strategy.ps_shards,
                        s.cluster.server_placement == ServerPlacement::Dedicated ? "dedicated hosts" : "colocated",
                        s.strategy.overlap ? "on" : "off");
  row(os, "strategy", fmt::format("{}, {} workers, BSP", strategy, plan.worker_count));
  row(os, "engine", fmt::format("{} ({}), {} iterations after {} warm-up", m.run.engine, m.run.fidelity, m.iterations,
                                m.warmup));
  os << "\n";
  row(os, "iteration time mean", format_time(m.iteration_time.mean));
  row(os, "iteration time p50/p95/p99", fmt::format("{} / {} / {}", format_time(m.iteration_time.p50),
                                                    format_time(m.iteration_time.p95), format_time(m.iteration_time.p99)));
  row(os, "throughput", fmt::format("{:.1f} samples/s", m.throughput_samples_per_s));
  row(os, "compute", percent(m.compute_fraction));
  row(os, "exposed communication", percent(m.exposed_comm_fraction));
  row(os, "waiting", percent(m.wait_fraction));
  row(os, "communication (total)", fmt::format("{} (overlapped or not)", percent(m.comm_fraction)));
  row(os, "bytes on the wire", fmt::format("{} per iteration", format_bytes(m.bytes_on_wire_per_iteration)));
  row(os, "simulated time", format_time(m.simulated_time_s));
  row(os, "wall time", format_time(m.run.wall_time_s));
}

}  // namespace dtsim::cli
