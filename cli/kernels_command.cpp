// `dtsim kernels`: one rank's kernels and collectives in one iteration (sim/kernel_table.hpp), printed as a table with
// each row's share of the step, then the time per kind.
#include <algorithm>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "core/scenario/loader.hpp"
#include "sim/kernel_table.hpp"

namespace dtsim::cli {

namespace {

std::string shape_text(const sim::KernelRow& r) {
  if (!r.shape.known()) return "";
  std::string s = fmt::format("{:.0f}x{:.0f}x{:.0f}", r.shape.m, r.shape.n, r.shape.k);
  if (r.shape.batch > 1) s += fmt::format(" b{:.0f}", r.shape.batch);
  if (r.shape.causal) s += " causal";
  return s;
}

std::string percent(double part, double whole) { return whole > 0 ? fmt::format("{:.1f} %", 100 * part / whole) : ""; }

}  // namespace

int kernels_command(const KernelsOptions& o) {
  const Scenario s = load_scenario(o.scenario, o.sets);
  const sim::KernelTable t = sim::kernel_table(s, o.rank);
  std::vector<const sim::KernelRow*> rows;
  for (const sim::KernelRow& r : t.rows) rows.push_back(&r);
  if (o.top > 0) {
    std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) { return a->total() > b->total(); });
    if (rows.size() > static_cast<size_t>(o.top)) rows.resize(static_cast<size_t>(o.top));
  }
  std::cout << fmt::format("{}: rank {}{} on {}; step {} (analytical engine)\n", t.scenario, t.rank,
                           t.stage >= 0 ? fmt::format(" (pipeline stage {})", t.stage) : "", t.device,
                           format_time(t.step_seconds));
  size_t width = 6;
  for (const auto* r : rows) width = std::max(width, r->name.size());
  std::cout << fmt::format("{:<{}}  {:<14} {:>6}  {:<22} {:>6}  {:<16} {:>10} {:>10} {:>7}\n", "kernel", width, "class",
                           "calls", "shape (m x n x k)", "waves", "bound", "time/call", "total", "share");
  for (const auto* r : rows) {
    const std::string waves = r->model && r->model->waves > 0 ? fmt::format("{:.2f}", r->model->waves) : "";
    std::cout << fmt::format("{:<{}}  {:<14} {:>6}  {:<22} {:>6}  {:<16} {:>10} {:>10} {:>7}\n", r->name, width,
                             r->kind, r->calls, shape_text(*r), waves, r->bound, format_time(r->seconds),
                             format_time(r->total()), percent(r->total(), t.step_seconds));
  }
  // Per kind and stream: what the step's time goes to.
  std::map<std::pair<int, std::string>, std::pair<int, double>> by_kind;
  double compute = 0;
  for (const sim::KernelRow& r : t.rows) {
    auto& k = by_kind[{static_cast<int>(r.stream), r.kind}];
    k.first += r.calls;
    k.second += r.total();
    if (r.stream == Stream::Compute) compute += r.total();
  }
  std::vector<std::pair<std::pair<int, std::string>, std::pair<int, double>>> kinds(by_kind.begin(), by_kind.end());
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
  std::cout << "\nby kind (compute stream, then communication streams, which overlap it):\n";
  for (int stream : {0, 1}) {
    for (const auto& [key, value] : kinds) {
      if ((key.first == static_cast<int>(Stream::Compute)) != (stream == 0)) continue;
      std::cout << fmt::format("  {:<14} {:<8} {:>7} calls {:>10} {:>7}\n", key.second,
                               stream == 0 ? "compute" : "comm", value.first, format_time(value.second),
                               percent(value.second, t.step_seconds));
    }
  }
  std::cout << fmt::format(
      "compute stream busy {} of the {} step ({}); the rest is waiting (pipeline bubbles, "
      "exposed communication)\n",
      format_time(compute), format_time(t.step_seconds), percent(compute, t.step_seconds));
  return 0;
}

}  // namespace dtsim::cli
