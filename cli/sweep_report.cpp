// The sweep's table, its scaling laws in words, and its plots.
#include "cli/sweep_report.hpp"

#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "core/base/atomic_file.hpp"
#include "core/base/units.hpp"
#include "plot/chart.hpp"

namespace dtsim::cli {
namespace {

std::string setting_of(const sweep::SweepManifest& m, int workers) {
  for (const auto& p : m.points) {
    if (p.workers == workers) return fmt::format("{}={}", p.params.front().first, p.params.front().second);
  }
  return "";
}

std::vector<double> fitted(const std::vector<double>& n, double p, double (*law)(double, double)) {
  std::vector<double> out;
  for (double x : n) out.push_back(law(p, x));
  return out;
}

// Worker counts spread between the smallest and largest, for smooth fitted curves.
std::vector<double> dense(const sweep::ScalingReport& r) {
  const double lo = r.points.front().workers, hi = r.points.back().workers;
  std::vector<double> out;
  for (int i = 0; i <= 64; ++i) out.push_back(lo * std::pow(hi / lo, i / 64.0));
  return out;
}

// A job's simulated time to the target loss (convergence-aware sweeps).
std::string to_target(const nlohmann::json& metrics) {
  if (!metrics.contains("convergence") || metrics["convergence"]["time_to_target_s"].is_null()) return "not reached";
  return format_time(metrics["convergence"]["time_to_target_s"].get<double>());
}

// A hybrid point's peak memory per rank, and NO FIT when it exceeds the device's.
std::string memory_cell(const nlohmann::json& metrics) {
  if (!metrics.contains("memory")) return fmt::format("{:>20}", "-");
  const auto& mem = metrics["memory"];
  return fmt::format("{:>20}", fmt::format("{}{}", format_bytes(mem["peak_bytes"].get<double>()),
                                           mem["fits"].get<bool>() ? "" : " NO FIT"));
}

}  // namespace

void print_sweep_table(std::ostream& os, const sweep::SweepManifest& m, const sweep::PointResults& done,
                       const std::optional<sweep::ScalingReport>& report) {
  const sweep::SweepTable table = sweep::sweep_table(m, done, report);
  bool memory = false;  // hybrid points: a memory column, marking the layouts that do not fit
  for (const sweep::SweepRow& r : table.rows) memory = memory || r.metrics->contains("memory");
  std::string head;
  for (const auto& k : m.param_keys) head += fmt::format("{:>16} ", k);
  if (table.several_jobs) head += fmt::format("{:>12} ", "job");
  os << head
     << fmt::format("{:>8} {:>11} {:>13} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10}{}", "workers", "iteration", "samples/s",
                    "compute", "exposed", "waiting", "speedup", "effic.", "Karp-Flatt",
                    table.convergence ? fmt::format(" {:>14}", "to target") : "")
     << (memory ? fmt::format("{:>20}", "memory per rank") : "") << "\n";
  for (const sweep::SweepRow& r : table.rows) {
    const auto& j = *r.metrics;
    std::string row;
    for (const auto& kv : r.point->params) row += fmt::format("{:>16} ", kv.second);
    if (table.several_jobs) row += fmt::format("{:>12} ", j.value("job", std::string()));
    const sweep::ScalingPoint* sp = r.scaling;
    os << row
       << fmt::format("{:>8} {:>11} {:>13.1f} {:>7.1f}% {:>7.1f}% {:>7.1f}% {:>8} {:>8} {:>10}", r.workers,
                      format_time(j["iteration_time_s"]["mean"].get<double>()),
                      j["throughput_samples_per_s"].get<double>(), 100 * j["compute_fraction"].get<double>(),
                      100 * j["exposed_comm_fraction"].get<double>(), 100 * j["wait_fraction"].get<double>(),
                      sp ? fmt::format("{:.2f}", sp->speedup) : "-",
                      sp ? fmt::format("{:.1f}%", 100 * sp->efficiency) : "-",
                      sp && sp->karp_flatt ? fmt::format("{:.4f}", *sp->karp_flatt) : "-")
       << (table.convergence ? fmt::format(" {:>14}", to_target(j)) : "") << (memory ? memory_cell(j) : "") << "\n";
  }
}

void print_scaling(std::ostream& os, const sweep::SweepManifest& m, const sweep::ScalingReport& r) {
  os << fmt::format("\n{} scaling, speedup relative to {} workers (taken as speedup {}):\n",
                    sweep::scaling_mode_name(m.mode), r.points.front().workers, r.points.front().workers);
  if (r.amdahl) {
    const auto max = r.amdahl_max_speedup();
    os << fmt::format(
        "  Amdahl     S(N) = 1 / ({:.5f} + {:.5f}/N)   parallel fraction p = {:.5f}, at most {} "
        "(R^2 {:.4f})\n",
        1 - r.amdahl->p, r.amdahl->p, r.amdahl->p, max ? fmt::format("{:.1f}x", *max) : "unbounded", r.amdahl->r2);
  } else {
    os << "  Amdahl     not fitted: a weak-scaling sweep grows the problem with the workers, and Amdahl's law bounds "
          "a fixed one (--scaling strong keeps it)\n";
  }
  os << fmt::format("  Gustafson  S(N) = {:.5f} + {:.5f} N          parallel fraction p = {:.5f} (R^2 {:.4f})\n",
                    1 - r.gustafson.p, r.gustafson.p, r.gustafson.p, r.gustafson.r2);
  if (r.efficiency_below_threshold_at) {
    os << fmt::format("  efficiency falls below {:.0f}% at {} workers ({}): scaling stops paying there\n",
                      100 * r.efficiency_threshold, *r.efficiency_below_threshold_at,
                      setting_of(m, *r.efficiency_below_threshold_at));
  } else {
    os << fmt::format("  efficiency stays at or above {:.0f}% up to {} workers\n", 100 * r.efficiency_threshold,
                      r.points.back().workers);
  }
}

std::vector<std::string> write_scaling_plots(const std::string& dir, const sweep::SweepManifest& m,
                                             const sweep::ScalingReport& r) {
  std::vector<double> n, s, e;
  for (const auto& p : r.points) {
    n.push_back(p.workers);
    s.push_back(p.speedup);
    e.push_back(p.efficiency);
  }
  const std::vector<double> nd = dense(r);
  const bool log_x = r.points.size() > 2 && r.points.back().workers >= 4 * r.points.front().workers;
  plot::Chart speedup;
  speedup.title =
      fmt::format("{}: {} scaling over {}", m.scenario, sweep::scaling_mode_name(m.mode), m.param_keys.front());
  speedup.x_label = "workers N";
  speedup.y_label = "speedup S(N)";
  speedup.log_x = log_x;
  speedup.log_y = log_x;
  speedup.series = {{"ideal S = N", nd, nd, "#999999", true, false, true}};
  if (r.amdahl) {
    speedup.series.push_back(
        {fmt::format("Amdahl p = {:.4f}", r.amdahl->p), nd, fitted(nd, r.amdahl->p, sweep::amdahl_speedup), "#d62728"});
  }
  speedup.series.push_back({fmt::format("Gustafson p = {:.4f}", r.gustafson.p), nd,
                            fitted(nd, r.gustafson.p, sweep::gustafson_speedup), "#2ca02c", true, false, true});
  speedup.series.push_back({"measured", n, s, "#1f77b4", false, true, false});
  plot::Chart efficiency;
  efficiency.title = fmt::format("{}: parallel efficiency", m.scenario);
  efficiency.x_label = "workers N";
  efficiency.y_label = "efficiency S(N)/N";
  efficiency.log_x = log_x;
  efficiency.legend_bottom = true;
  efficiency.series = {{"measured", n, e, "#1f77b4", true, true, false}};
  efficiency.guides.push_back(
      {false, r.efficiency_threshold, fmt::format("threshold {:.0f}%", 100 * r.efficiency_threshold), "#d62728"});
  if (r.efficiency_below_threshold_at) {
    const std::string where = fmt::format("below at N = {}", *r.efficiency_below_threshold_at);
    efficiency.guides.push_back({true, static_cast<double>(*r.efficiency_below_threshold_at), where, "#d62728"});
    speedup.guides.push_back({true, static_cast<double>(*r.efficiency_below_threshold_at),
                              fmt::format("efficiency < {:.0f}%", 100 * r.efficiency_threshold), "#d62728"});
  }
  std::vector<std::string> written;
  for (const auto& [name, chart] : {std::pair{"speedup", &speedup}, std::pair{"efficiency", &efficiency}}) {
    const std::string base = (std::filesystem::path(dir) / name).string();
    write_file_atomic(base + ".svg", plot::render_svg(*chart));
    written.push_back(base + ".svg");
    if (plot::png_supported()) {
      plot::write_png(*chart, base + ".png");
      written.push_back(base + ".png");
    }
  }
  return written;
}

}  // namespace dtsim::cli
