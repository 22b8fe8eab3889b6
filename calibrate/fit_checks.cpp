// The checks of calibrate/fit_checks.hpp.
#include "calibrate/fit_checks.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim::calib {
namespace {

// A last segment at or below this per-unit time is flat (fit.cpp clamps a non-growing one to 1e-18).
constexpr double kFlat = 1e-17;

struct Ceiling {
  double rate = 0;
  std::string what;   // where it comes from
  double from_x = 0;  // the samples it bounds: those of at least this x (below, a cache can beat it)
};

// The best x / t any sample of at least `from_x` reached; 0 without such samples.
double best_rate(const std::vector<Sample>& samples, double from_x = 0) {
  double best = 0;
  for (const Sample& s : samples) {
    if (s.seconds > 0 && s.x > 0 && s.x >= from_x) best = std::max(best, s.x / s.seconds);
  }
  return best;
}

// Compute and attention curves are in FLOPs; the others in bytes.
bool in_flops(const std::string& group) { return group == "compute" || group == "attention"; }

std::string rate_text(const std::string& group, double rate) {
  return in_flops(group) ? fmt::format("{:.4g} GFLOP/s", rate / 1e9) : fmt::format("{:.4g} GB/s", rate / 1e9);
}

FitCheck check_curve(const std::string& group, const std::string& name, const FittedCurve& c,
                     const std::optional<Ceiling>& ceiling, const std::string& no_ceiling) {
  FitCheck out{group, name, FitVerdict::Ok, ""};
  const Segment& last = c.fit.segments.back();
  if (last.per_unit <= kFlat) {
    out.verdict = FitVerdict::Refused;
    out.reason = fmt::format(
        "time does not grow with size from {:.4g} on: an infinite rate (the benchmark did no work)", last.min_x);
    return out;
  }
  const double rate = 1.0 / last.per_unit;
  const double best = best_rate(c.samples);
  const std::string unit = in_flops(group) ? "FLOPs" : "bytes";
  if (best > 0 && rate > kSupport * best) {
    out.verdict = FitVerdict::Refused;
    out.reason = fmt::format("{} fitted, more than {:g} x the best any sample reached ({})", rate_text(group, rate),
                             kSupport, rate_text(group, best));
    return out;
  }
  std::string bound = no_ceiling;
  if (ceiling) {
    const double over = std::max(rate, best_rate(c.samples, ceiling->from_x));
    if (over > ceiling->rate) {
      out.verdict = FitVerdict::Refused;
      out.reason = fmt::format("{} {}, past the ceiling of {} ({})", rate_text(group, over),
                               rate > best ? "fitted" : "measured", rate_text(group, ceiling->rate), ceiling->what);
      return out;
    }
    bound = fmt::format("ceiling {} ({})", rate_text(group, ceiling->rate), ceiling->what);
  }
  const double rms = c.residuals.rms_relative;
  const bool few = c.residuals.points < kMinSizes;
  if (rms > kResidualBound || few) out.verdict = FitVerdict::Marked;
  out.reason =
      fmt::format("{} from {:.4g} {} ({}); residuals rms {:.1f} %{}{}", rate_text(group, rate), last.min_x, unit, bound,
                  100 * rms, rms > kResidualBound ? fmt::format(", past the {:.0f} % bound", 100 * kResidualBound) : "",
                  few ? fmt::format(", over {} sizes only (fewer than {})", c.residuals.points, kMinSizes) : "");
  return out;
}

bool same_samples(const std::vector<Sample>& a, const std::vector<Sample>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const Sample& l, const Sample& r) {
           return l.x == r.x && l.seconds == r.seconds;
         });
}

// Checks every curve of one group; refused ones leave `curves`.
void check_group(const std::string& group, std::map<std::string, FittedCurve>& curves,
                 const std::function<std::optional<Ceiling>(const std::string&)>& ceiling_of,
                 const std::string& no_ceiling, std::vector<FitCheck>& out) {
  for (auto it = curves.begin(); it != curves.end();) {
    out.push_back(check_curve(group, it->first, it->second, ceiling_of(it->first), no_ceiling));
    it = out.back().verdict == FitVerdict::Refused ? curves.erase(it) : std::next(it);
  }
}

[[noreturn]] void cannot_write(const FitCheck& c) {
  throw RuntimeError(
      fmt::format("calibrate: the {} curve {} is refused ({}); no profile written: measure again on a "
                  "quieter machine",
                  c.group, c.name, c.reason));
}

}  // namespace

double cpu_compute_peak(int cores_per_rank) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  double mhz = 0;
  int flops_per_cycle = 16;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (line.rfind("cpu MHz", 0) == 0) {
      try {
        mhz = std::max(mhz, std::stod(line.substr(colon + 1)));
      } catch (const std::exception&) {
      }
    } else if (line.rfind("flags", 0) == 0) {
      const std::string flags = line.substr(colon) + " ";
      if (flags.find(" avx512f ") != std::string::npos) {
        flops_per_cycle = 64;
      } else if (flags.find(" fma ") != std::string::npos && flags.find(" avx2 ") != std::string::npos) {
        flops_per_cycle = std::max(flops_per_cycle, 32);
      }
    }
  }
  // With cpufreq, /proc/cpuinfo lists each core's clock now (idle: far below a GEMM's); the highest
  // clock the driver allows is the bound then, with a quarter more for a boost it leaves out.
  double max_khz = 0;
  std::ifstream("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq") >> max_khz;
  const double hz = std::max(mhz * 1e6 * 1.5, max_khz * 1e3 * 1.25);
  return std::max(1, cores_per_rank) * hz * flops_per_cycle;
}

const std::vector<FitCheck>& check_fits(CalibrationProfile& p, const FitCeilings& ceilings, bool measured) {
  std::vector<FitCheck> checks;

  const auto memory_peak = [&](const std::string&) {
    return ceilings.memory_peak > 0 ? std::optional<Ceiling>{Ceiling{ceilings.memory_peak, ceilings.memory_source,
                                                                     ceilings.memory_past_bytes}}
                                    : std::nullopt;
  };
  check_group("memory", p.memory, memory_peak, "no ceiling: the memory curves are the streaming rate", checks);
  double stream = 0;
  // Out of cache: a loop over data left in cache (kInCacheSuffix) runs at the cache's rate, which would
  // loosen every ceiling below by the factor between the two.
  for (const auto& [name, c] : p.memory) {
    if (!name.ends_with(kInCacheSuffix)) stream = std::max(stream, best_rate(c.samples));
  }
  const std::optional<Ceiling> streaming =
      stream > 0 ? std::optional<Ceiling>{Ceiling{
                       kStreamSlack * stream, fmt::format("{:g} x the fastest streaming loop measured", kStreamSlack)}}
                 : std::nullopt;

  const auto peak = [&](const std::string& dtype) {
    const auto it = ceilings.compute_peak.find(dtype);
    return it != ceilings.compute_peak.end() && it->second > 0
               ? std::optional<Ceiling>{Ceiling{it->second, "the rank's peak"}}
               : std::nullopt;
  };
  check_group("compute", p.compute, peak, "no ceiling: this device's peak is not known here", checks);
  check_group("attention", p.attention, peak, "no ceiling: this device's peak is not known here", checks);

  const auto exchange = p.exchange.find(kSameHost);
  check_group(
      "links", p.links,
      [&](const std::string& cls) -> std::optional<Ceiling> {
        if (cls == kSameHost && exchange != p.exchange.end() &&
            !same_samples(p.links.at(cls).samples, exchange->second)) {
          const double best = best_rate(exchange->second);
          if (best > 0) {
            return Ceiling{kRoundSlack * best, fmt::format("{:g} x the exchanges' best on this host", kRoundSlack)};
          }
        }
        if ((cls == kSameHostP2p || cls == kSameHost || cls == in_cache_curve(kSameHost)) &&
            p.machine.backend == Backend::Cpu) {
          return streaming;
        }
        return std::nullopt;
      },
      "no ceiling: the network's rate is not read here", checks);

  // A same_host link refused from ring rounds (noise on a busy machine: rounds that did not grow with
  // size) falls back to the two-way exchanges on the host, as a profile of several hosts fits it:
  // same_host_p2p is that fit.
  const auto p2p = p.links.find(kSameHostP2p);
  if (!p.links.count(kSameHost) && p2p != p.links.end()) {
    const FitCheck& via = *std::find_if(checks.begin(), checks.end(),
                                        [](const FitCheck& c) { return c.group == "links" && c.name == kSameHostP2p; });
    for (FitCheck& c : checks) {
      if (c.group == "links" && c.name == kSameHost) c.reason += "; fitted to the two-way exchanges instead (below)";
    }
    checks.push_back(FitCheck{"links", kSameHost, via.verdict, "from the two-way exchanges: " + via.reason});
    p.links[kSameHost] = p2p->second;
  }

  check_group(
      "compression", p.compression, [&](const std::string&) { return streaming; },
      "no ceiling: no streaming loop measured", checks);

  for (const FitCheck& c : checks) {
    if (c.verdict != FitVerdict::Refused || !measured) continue;
    if ((c.group == "compute" && c.name == "fp32") || (c.group == "memory" && c.name == "sgd_step")) cannot_write(c);
    if (c.group == "links" && p.links.empty() && p.machine.ranks > 1) cannot_write(c);
  }
  p.fit_checks = std::move(checks);
  return p.fit_checks;
}

std::string fit_check_line(const FitCheck& c) {
  return fmt::format("  {:<8} {:<12} {:<20} {}", fit_verdict_name(c.verdict), c.group, c.name, c.reason);
}

}  // namespace dtsim::calib
