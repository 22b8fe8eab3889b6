// `dtsim collectives`: the nccl-tests table NCCL's cost model predicts for a described cluster (size, time, algbw,
// busbw, and the algorithm and protocol NCCL picks), to lay beside a measured nccl-tests run: with --measured, at
// that run's sizes with its bus bandwidth and the error beside; with --plot, as a chart of busbw against size.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/base/atomic_file.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "core/scenario/loader.hpp"
#include "models/collectives/nccl/busbw_curve.hpp"
#include "models/collectives/nccl/nccl_cluster.hpp"
#include "models/collectives/nccl/nccl_tuning.hpp"
#include "plot/chart.hpp"

namespace dtsim::cli {

namespace {

// nccl-tests' bus bandwidth factor: what each rank's link carries per byte of S.
double bus_factor(CollectiveKind kind, int n) {
  switch (kind) {
    case CollectiveKind::AllReduce: return 2.0 * (n - 1) / n;
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllGather:
    case CollectiveKind::AllToAll: return static_cast<double>(n - 1) / n;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce: return 1.0;
  }
  return 1.0;
}

Scenario collectives_scenario(const CollectivesOptions& o) {
  std::vector<std::string> sets;
  if (!o.preset.empty()) sets.push_back("cluster.preset=" + o.preset);
  if (!o.device.empty()) sets.push_back("cluster.device=" + o.device);
  sets.insert(sets.end(), o.sets.begin(), o.sets.end());
  if (o.nodes > 0) sets.push_back(fmt::format("cluster.nodes={}", o.nodes));
  if (o.gpus_per_node > 0) sets.push_back(fmt::format("cluster.devices_per_node={}", o.gpus_per_node));
  if (!o.scenario.empty()) return load_scenario(o.scenario, sets);
  // No scenario: the cluster from --preset, --device and --set alone. A scenario needs a model; the table reads only
  // cluster.*. Without a preset (--preset or --set cluster.preset) the node is 8 GPUs of --device, h100_sxm unless
  // given.
  bool preset = !o.preset.empty();
  for (const std::string& set : o.sets) preset = preset || set.rfind("cluster.preset=", 0) == 0;
  const std::string text =
      preset ? std::string("name: collectives\nmodel:\n  name: resnet50\n")
             : "name: collectives\ncluster:\n  device: h100_sxm\n  devices_per_node: 8\nmodel:\n  name: resnet50\n";
  return load_scenario_text(text, "dtsim collectives", sets);
}

// One row of the table.
struct Row {
  CollectiveKind kind = CollectiveKind::AllReduce;
  double bytes = 0;
  nccl::Choice choice;
  double algbw = 0;                // GB/s
  double busbw = 0;                // GB/s
  std::optional<double> measured;  // GB/s, with --measured
};

constexpr const char* kColors[] = {"#1f77b4", "#2ca02c", "#9467bd", "#8c564b"};

// Refuses a --plot path this build cannot draw, before anything is computed.
void check_plot_path(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext != ".svg" && ext != ".png") {
    throw InputError(fmt::format("--plot {}: name an .svg or a .png file", path));
  }
  if (ext == ".png" && !plot::png_supported()) {
    throw InputError(fmt::format("--plot {}: this build draws SVG only (Qt 6 Gui was not found); name an .svg", path));
  }
}

void write_plot(const std::string& path, const std::vector<Row>& rows, const std::vector<CollectiveKind>& kinds,
                const std::string& title, const std::string& measured) {
  plot::Chart chart;
  chart.title = title;
  chart.x_label = "size";
  chart.y_label = "bus bandwidth (GB/s)";
  chart.log_x = true;
  chart.x_bytes = true;
  for (size_t k = 0; k < kinds.size(); ++k) {
    plot::Series model{
        fmt::format("{}: NCCL's model (dtsim)", collective_name(kinds[k])), {}, {}, kColors[k % std::size(kColors)]};
    plot::Series meas{fmt::format("{}: {}", collective_name(kinds[k]), measured), {}, {}, "#d62728", true, true, true};
    for (const Row& r : rows) {
      if (r.kind != kinds[k]) continue;
      model.x.push_back(r.bytes);
      model.y.push_back(r.busbw);
      if (r.measured) {
        meas.x.push_back(r.bytes);
        meas.y.push_back(*r.measured);
      }
    }
    chart.series.push_back(std::move(model));
    if (!meas.x.empty()) chart.series.push_back(std::move(meas));
  }
  if (std::filesystem::path(path).extension() == ".svg") {
    write_file_atomic(path, plot::render_svg(chart));
  } else {
    plot::write_png(chart, path);
  }
}

// "mean / largest |error| (%)" over the rows with a measured busbw above 0 in [lo, hi).
std::string error_summary(const std::vector<Row>& rows, double lo, double hi) {
  double sum = 0, worst = 0;
  int n = 0;
  for (const Row& r : rows) {
    if (!r.measured || *r.measured <= 0 || r.bytes < lo || r.bytes >= hi) continue;
    const double e = std::abs(100 * (r.busbw - *r.measured) / *r.measured);
    sum += e;
    worst = std::max(worst, e);
    ++n;
  }
  return n > 0 ? fmt::format("{:.1f} / {:.1f} % over {} sizes", sum / n, worst, n) : std::string("no size");
}

}  // namespace

int collectives_command(const CollectivesOptions& o) {
  const Scenario s = collectives_scenario(o);
  const ClusterSpec& c = s.cluster;
  const double lo = parse_quantity(o.min_bytes, Quantity::Bytes);
  const double hi = parse_quantity(o.max_bytes, Quantity::Bytes);
  if (lo < 1 || hi < lo) {
    throw InputError(
        fmt::format("--min-bytes {} and --max-bytes {}: need 1 B <= min <= max", o.min_bytes, o.max_bytes));
  }
  std::vector<CollectiveKind> kinds;
  for (const std::string& op : o.ops) kinds.push_back(parse_collective(op));
  if (!o.plot.empty()) check_plot_path(o.plot);
  std::vector<nccl::BusbwPoint> measured;
  if (!o.measured.empty()) {
    if (kinds.size() != 1) {
      throw InputError(
          fmt::format("--measured {}: a measured curve is of one collective; name it alone in --ops "
                      "(e.g. --ops allreduce)",
                      o.measured));
    }
    measured = nccl::read_busbw_curve(o.measured);
  }
  const nccl::NodeTopology node = nccl::node_topology(c);
  const nccl::Communicator comm{c.devices(), c.nodes};
  const nccl::Tuning tuning(node, comm);
  const nccl::Graphs& g = tuning.graphs();

  std::vector<Row> rows;
  const auto add = [&](CollectiveKind kind, double bytes, std::optional<double> meas) {
    Row r{kind, bytes, tuning.choose(kind, bytes), 0, 0, meas};
    r.algbw = r.choice.seconds > 0 ? bytes / r.choice.seconds / 1e9 : 0.0;
    r.busbw = r.algbw * bus_factor(kind, comm.ranks);
    rows.push_back(r);
  };
  for (CollectiveKind kind : kinds) {
    if (!measured.empty()) {
      for (const nccl::BusbwPoint& p : measured) add(kind, p.bytes, p.busbw / 1e9);
      continue;
    }
    for (double bytes = lo; bytes <= hi * (1 + 1e-9); bytes *= o.factor) add(kind, bytes, std::nullopt);
  }

  std::cout << fmt::format("# NCCL's cost model ({}) on {} node(s) x {} {}\n", nccl::kNcclVersion, c.nodes,
                           c.devices_per_node, c.device_names());
  std::cout << fmt::format(
      "# node: {}, PCIe {:.0f} GB/s per GPU, {} NIC(s) x {:.1f} GB/s, {} CPU\n",
      node.nvlinks > 0 ? fmt::format("{} NVLinks per GPU x {} GB/s (NCCL's figure)", node.nvlinks, node.nvlink_bw)
                       : std::string("PCIe between GPUs"),
      node.gpu_pcie_bw, node.nics, node.nic_bw,
      node.cpu == nccl::Cpu::Amd   ? "AMD"
      : node.cpu == nccl::Cpu::Arm ? "Arm"
                                   : "Intel");
  const NcclStack& stack = node.stack;
  if (!stack.name.empty()) {
    std::cout << fmt::format(
        "# network stack: {} (declared latency {:.0f} us, NVLS chunk {} KiB, NVLS tree chunk at most {}, LL {})\n",
        stack.name, stack.declared_latency, stack.nvls_chunk / 1024,
        stack.nvls_tree_max_chunk > 0 ? fmt::format("{} KiB", stack.nvls_tree_max_chunk / 1024)
                                      : std::string("NCCL's own"),
        stack.ll ? "on" : "off");
  }
  std::cout << fmt::format(
      "# graphs: ring {} channels x {:.1f}/{:.1f} GB/s, tree {} x {:.1f}/{:.1f}, nvls {} x {:.1f}/{:.1f}\n",
      g.ring.channels, g.ring.bw_intra, g.ring.bw_inter, g.tree.channels, g.tree.bw_intra, g.tree.bw_inter,
      g.nvls.channels, g.nvls.bw_intra, g.nvls.bw_inter);
  // The time is NCCL's estimate for the pair it picks, with what that estimate leaves out (docs/collectives.md).
  if (const std::string terms = tuning.measured_terms(); !terms.empty()) {
    std::cout << "# time: NCCL's estimate, with " << terms << "\n";
  }
  std::cout << fmt::format("{:>15} {:>13} {:>12} {:>11} {:>11}  {:<10} {}\n", "collective", "size (B)", "time (us)",
                           "algbw GB/s", "busbw GB/s", "algorithm",
                           measured.empty() ? "protocol" : "protocol  measured GB/s    error");
  for (const Row& r : rows) {
    const bool p2p = r.kind == CollectiveKind::AllToAll;
    std::string beside;
    if (r.measured) {
      beside = *r.measured > 0
                   ? fmt::format("  {:>13.2f} {:>+7.1f} %", *r.measured, 100 * (r.busbw - *r.measured) / *r.measured)
                   : fmt::format("  {:>13.2f}       -", *r.measured);
    }
    const std::string_view proto = p2p ? "Simple" : nccl::proto_name(r.choice.proto);
    std::cout << fmt::format("{:>15} {:>13.0f} {:>12.2f} {:>11.2f} {:>11.2f}  {:<10} {}{}\n", collective_name(r.kind),
                             r.bytes, r.choice.seconds * 1e6, r.algbw, r.busbw,
                             p2p ? "p2p" : nccl::algo_name(r.choice.algo),
                             beside.empty() ? fmt::format("{}", proto) : fmt::format("{:<8}", proto), beside);
  }
  constexpr double kMiB = 1 << 20;
  if (!measured.empty()) {
    std::cout << fmt::format("# against {}: mean / largest |error| from 1 MiB {}; below 1 MiB {}\n", o.measured,
                             error_summary(rows, kMiB, INFINITY), error_summary(rows, 0, kMiB));
  }
  if (!o.plot.empty()) {
    const std::string title =
        fmt::format("NCCL's model on {} node(s) x {} {}", c.nodes, c.devices_per_node, c.device_names());
    write_plot(o.plot, rows, kinds, title,
               measured.empty() ? std::string() : std::filesystem::path(o.measured).filename().string());
    std::cout << fmt::format("# wrote {}\n", o.plot);
  }
  return 0;
}

}  // namespace dtsim::cli
