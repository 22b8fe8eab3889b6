// Fitting the profile to what the microbenchmarks measured, checking and printing it (the run itself:
// calibrate_run.cpp).
#include "calibrate/calibrate.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "calibrate/bench_util.hpp"
#include "calibrate/fit.hpp"
#include "core/base/atomic_file.hpp"
#include "core/base/error.hpp"
#include "core/calibration/profile_writer.hpp"
#include "models/collectives/collective.hpp"

namespace dtsim::calib {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// Median and spread ((largest - smallest) / median) of one list of rounds.
std::string median_spread(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  const double m = median(v);
  return fmt::format("{:9.3f} ms  spread {:5.1f} %", m * 1e3, m > 0 ? 100 * (*hi - *lo) / m : 0.0);
}

}  // namespace

void print_contention(std::ostream& out, const ContentionSample& s) {
  const ContentionFit f = fit_contention(s);
  out << fmt::format(
      "\ncontention: a GEMM op of {:.3g} FLOPs and an AllReduce of {:.0f} bytes on every rank, {} interleaved "
      "rounds (median, the slowest rank's)\n",
      s.gemm_flops, s.collective_bytes, s.gemm_alone.size());
  out << "  GEMM op alone             " << median_spread(s.gemm_alone) << "\n";
  out << "  AllReduce alone           " << median_spread(s.collective_alone) << "\n";
  out << "  GEMM op beside AllReduces " << median_spread(s.gemm_under_comm)
      << fmt::format("   compute keeps {:.2f} of its rate\n", f.compute_kept);
  out << "  AllReduce beside GEMMs    " << median_spread(s.collective_under_gemm)
      << fmt::format("   communication keeps {:.2f}\n", f.comm_kept);
  out << "  both started together     " << median_spread(s.both) << "\n";
  const BothAtOnce b = both_at_once(s);
  const auto row = [&](const std::string& model, double predicted) {
    out << fmt::format("    {:<46} {:9.3f} ms  {:+6.1f} %\n", model, predicted * 1e3,
                       100 * (predicted - b.measured) / b.measured);
  };
  out << "  both together as the models predict it from the two alone (error against the measured):\n";
  row("no contention: max(G, C)", b.none);
  row("one after the other: G + C (cpu cores)", b.serial);
  row(fmt::format("compute at {:.2f} while communicating", f.compute_kept), b.compute_slowed);
  row(fmt::format("compute at {:.2f}, communication at {:.2f}", f.compute_kept, f.comm_kept), b.both_slowed);
}

void predict_collectives(CalibrationProfile& p) {
  const FittedCurve* same = p.link(kSameHost);
  for (CollectiveSample& c : p.collectives) {
    const GroupShape shape{c.ranks, c.ranks, 0};  // one host: every rank on one node
    const CollectiveAlgorithm& algo = find_algorithm(c.algorithm);
    const CollectiveKind kind = parse_collective(c.kind);
    if (!same || !algo.supports(kind, shape)) continue;
    const Segment& s = same->fit.at(c.bytes / c.ranks);
    const AlphaBeta ab{s.fixed, 1.0 / s.per_unit, s.fixed, 1.0 / s.per_unit};
    c.predicted = algo.closed_form(kind, shape, c.bytes, ab);
  }
}

std::vector<Sample> allreduce_rounds(const std::vector<CollectiveSample>& collectives) {
  std::vector<Sample> rounds;
  for (const CollectiveSample& c : collectives) {
    if (c.kind == "allreduce" && c.ranks > 1)
      rounds.push_back(Sample{c.bytes / c.ranks, c.seconds / (2.0 * (c.ranks - 1))});
  }
  return rounds;
}

MachineInfo this_machine(Backend backend, int ranks, int hosts, bool quick) {
  MachineInfo m;
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  m.hostname = name;
  m.cpu_model = cpu_model();
  m.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  m.backend = backend;
  m.when = now_utc();
  m.ranks = ranks;
  m.hosts = hosts;
  m.dtsim_version = DTSIM_VERSION;
  m.quick = quick;
  return m;
}

CalibrationProfile fit_profile(const MachineInfo& machine, Measurements m, const FitCeilings& ceilings) {
  CalibrationProfile p;
  p.machine = machine;
  p.memory_roofline = false;  // neither backend replays memory traffic: ops run their FLOPs as GEMMs
  // same_host: the rounds of the ring AllReduces when every rank shares a host, as dtsim-real's
  // schedules run them; else exchanges.
  std::vector<Sample> rounds = machine.hosts == 1 ? allreduce_rounds(m.collectives) : std::vector<Sample>{};
  if (rounds.size() >= 3) p.links[kSameHost] = fit_curve(std::move(rounds), PiecewiseOptions{4, 3});
  for (const auto& [cls, samples] : m.exchange) {
    if (!p.links.count(cls)) {
      p.links[cls] = fit_curve(samples, PiecewiseOptions{4, 3});
    } else if (cls == kSameHost && samples.size() >= 3) {
      p.links[kSameHostP2p] = fit_curve(samples, PiecewiseOptions{4, 3});
    }
  }
  p.exchange = std::move(m.exchange);
  for (auto& [dtype, samples] : m.gemm) p.compute[dtype] = fit_curve(std::move(samples), PiecewiseOptions{3, 3});
  p.memory["sgd_step"] = fit_curve(std::move(m.memory), PiecewiseOptions{3, 3});
  if (m.collective_buffer.size() >= 3) {
    p.memory[kCollectiveBuffer] = fit_curve(std::move(m.collective_buffer), PiecewiseOptions{3, 3});
  }
  if (m.push_buffer.size() >= 3) p.memory[kPushBuffer] = fit_curve(std::move(m.push_buffer), PiecewiseOptions{3, 3});
  // The same with the data in cache (bench_in_cache), for plans whose model state fits it.
  if (m.in_cache.sgd_step.size() >= 3) {
    p.memory[in_cache_curve("sgd_step")] = fit_curve(std::move(m.in_cache.sgd_step), PiecewiseOptions{3, 3});
  }
  if (machine.hosts == 1 && m.in_cache.rounds.size() >= 3) {
    p.links[in_cache_curve(kSameHost)] = fit_curve(std::move(m.in_cache.rounds), PiecewiseOptions{4, 3});
  }
  // Up to 3 segments, as memory: top-k's selection grows faster than its size (20 us at 64 KiB, 188 ms
  // at 64 MiB here), and one line through it missed its samples by 69 % rms.
  for (auto& [kernel, samples] : m.compression) p.compression[kernel] = fit_curve(std::move(samples), {3, 2});
  check_fits(p, ceilings);
  p.memory_bandwidth = 1.0 / p.memory.at("sgd_step").fit.segments.back().per_unit;
  p.collectives = std::move(m.collectives);
  predict_collectives(p);
  p.contention = std::move(m.contention);
  return p;
}

std::string measured_busbw_key(const CalibrationProfile& p) {
  if (p.machine.hosts != 1) return "";
  std::map<double, std::vector<double>> by_size;
  for (const CollectiveSample& c : p.collectives) {
    if (c.kind == "allreduce" && c.ranks > 1 && c.busbw > 0) by_size[c.bytes].push_back(c.busbw);
  }
  std::string key;
  for (auto& [bytes, busbw] : by_size) {
    std::sort(busbw.begin(), busbw.end());
    const size_t n = busbw.size();
    const double median = n % 2 == 1 ? busbw[n / 2] : (busbw[n / 2 - 1] + busbw[n / 2]) / 2;
    key += fmt::format("{}{:.0f}B:{:.4g}GB/s", key.empty() ? "" : ",", bytes, median / 1e9);
  }
  return key;
}

void print_profile(std::ostream& out, const CalibrationProfile& p) {
  const MachineInfo& m = p.machine;
  if (m.from_trace.empty()) {
    out << fmt::format("calibration of {} ({}, {} cores{}), backend {}, {} ranks on {} host(s), {}{}\n", m.hostname,
                       m.cpu_model, m.cores, m.device.empty() ? "" : ", rank 0 on " + m.device, backend_name(m.backend),
                       m.ranks, m.hosts, m.when, m.quick ? " (quick)" : "");
  } else {
    out << fmt::format("calibration fitted to {} ({}), backend {}, {}\n", m.from_trace,
                       !m.device.empty()            ? m.device
                       : m.backend == Backend::Cuda ? "a GPU the trace does not name"
                                                    : "CPU ops",
                       backend_name(m.backend), m.when);
  }
  for (const auto& [cls, c] : p.links) {
    out << fmt::format("\nlink {} ({} sizes: {}; residuals rms {:.1f} %, max {:.1f} %)\n", cls, c.residuals.points,
                       cls == kSameHostP2p ? "two-way exchanges, for point-to-point transfers"
                       : cls == in_cache_curve(kSameHost)
                           ? "rounds of ring AllReduces on buffers left in cache"
                           : "rounds of ring AllReduces on one host, else two-way exchanges",
                       100 * c.residuals.rms_relative, 100 * c.residuals.max_relative);
    out << fmt::format("  {:>14} {:>14} {:>16}\n", "from bytes", "latency (us)", "bandwidth (GB/s)");
    for (const Segment& s : c.fit.segments) {
      out << fmt::format("  {:>14.0f} {:>14.2f} {:>16.3f}\n", s.min_x, s.fixed * 1e6, 1e-9 / s.per_unit);
    }
  }
  const bool traced = !p.machine.from_trace.empty();
  const std::pair<const char*, const std::map<std::string, FittedCurve>*> flop_curves[] = {{"compute", &p.compute},
                                                                                           {"attention", &p.attention}};
  for (const auto& [group, curves] : flop_curves) {
    for (const auto& [dtype, c] : *curves) {
      const std::string what = std::string_view(group) == "attention"
                                   ? "the traces' fused attention ops, the mean time per FLOP count"
                               : traced ? "the traces' GEMMs, the mean time per FLOP count"
                                        : "GEMMs as dtsim-real cuts them, all ranks at once";
      out << fmt::format("\n{} {} ({}, {} sizes; residuals rms {:.1f} %, max {:.1f} %)\n", group, dtype, what,
                         c.residuals.points, 100 * c.residuals.rms_relative, 100 * c.residuals.max_relative);
      out << fmt::format("  {:>14} {:>14} {:>16}\n", "from FLOPs", "overhead (us)", "rate (GFLOP/s)");
      for (const Segment& s : c.fit.segments) {
        out << fmt::format("  {:>14.3g} {:>14.2f} {:>16.3f}\n", s.min_x, s.fixed * 1e6, 1e-9 / s.per_unit);
      }
      out << "  efficiency against op size:";
      for (double f : {1e4, 1e5, 1e6, 1e7, 1e8, 1e9}) out << fmt::format(" {:.0e}: {:.2f}", f, efficiency(c.fit, f));
      out << "\n";
    }
  }
  for (const auto& [kernel, c] : p.memory) {
    out << fmt::format("\nmemory {} ({}, {} sizes; residuals rms {:.1f} %, max {:.1f} %)\n", kernel,
                       traced ? "the traces' memory-bound ops, the mean time per byte count" : "all ranks at once",
                       c.residuals.points, 100 * c.residuals.rms_relative, 100 * c.residuals.max_relative);
    out << fmt::format("  {:>14} {:>14} {:>16}\n", "from bytes", "overhead (us)", "rate (GB/s)");
    for (const Segment& s : c.fit.segments) {
      out << fmt::format("  {:>14.0f} {:>14.2f} {:>16.3f}\n", s.min_x, s.fixed * 1e6, 1e-9 / s.per_unit);
    }
  }
  for (const auto& [kernel, c] : p.compression) {
    out << fmt::format("compression {:<18}", kernel);
    for (const Segment& s : c.fit.segments) {
      out << fmt::format("{} {:.2f} us + {:.3f} GB/s of gradient",
                         s.min_x > 0 ? fmt::format(", from {:.0f} B:", s.min_x) : "", s.fixed * 1e6, 1e-9 / s.per_unit);
    }
    out << fmt::format(" (residuals rms {:.1f} %)\n", 100 * c.residuals.rms_relative);
  }
  if (p.contention) print_contention(out, *p.contention);
  if (!p.collectives.empty()) {
    out << fmt::format("\ncollectives (like nccl-tests; predicted: closed form with the fitted {} link)\n", kSameHost);
    out << fmt::format("  {:>14} {:>6} {:>12} {:>12} {:>12} {:>12} {:>14} {:>8}\n", "kind", "ranks", "size (B)",
                       "time (us)", "algbw (GB/s)", "busbw (GB/s)", "predicted (us)", "error");
    for (const CollectiveSample& c : p.collectives) {
      out << fmt::format("  {:>14} {:>6} {:>12.0f} {:>12.1f} {:>12.3f} {:>12.3f} {}\n", c.kind, c.ranks, c.bytes,
                         c.seconds * 1e6, c.algbw / 1e9, c.busbw / 1e9,
                         c.predicted > 0 && c.seconds > 0 ? fmt::format("{:>14.1f} {:>7.1f}%", c.predicted * 1e6,
                                                                        100 * (c.predicted - c.seconds) / c.seconds)
                                                          : fmt::format("{:>14} {:>8}", "-", "-"));
    }
  }
  if (!p.fit_checks.empty()) {
    out << "\nfit checks (calibrate/fit_checks.hpp: refused curves are left out of the profile, marked ones kept)\n";
    for (const FitCheck& c : p.fit_checks) out << fit_check_line(c) << "\n";
  }
  const std::string busbw = measured_busbw_key(p);
  if (!busbw.empty()) {
    out << "\nthe AllReduce bus bandwidth measured here, as a scenario key (for a cluster described without this "
           "profile; it overrides NCCL's model there):\n"
        << "  cluster.intra_node.collective_busbw: " << busbw << "\n";
  }
}

}  // namespace dtsim::calib
