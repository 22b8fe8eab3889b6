// `dtsim collectives`: the nccl-tests table NCCL's cost model predicts for a described cluster (size, time, algbw,
// busbw, and the algorithm and protocol NCCL picks), to lay beside a measured nccl-tests run.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "core/collectives/nccl/nccl_cluster.hpp"
#include "core/collectives/nccl/nccl_tuning.hpp"
#include "core/scenario/loader.hpp"

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
  const nccl::NodeTopology node = nccl::node_topology(c);
  const nccl::Communicator comm{c.devices(), c.nodes};
  const nccl::Tuning tuning(node, comm);
  const nccl::Graphs& g = tuning.graphs();
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
  std::cout << fmt::format("{:>15} {:>13} {:>12} {:>11} {:>11}  {:<10} {}\n", "collective", "size (B)", "time (us)",
                           "algbw GB/s", "busbw GB/s", "algorithm", "protocol");
  for (CollectiveKind kind : kinds) {
    for (double bytes = lo; bytes <= hi * (1 + 1e-9); bytes *= o.factor) {
      const nccl::Choice ch = tuning.choose(kind, bytes);
      const double algbw = ch.seconds > 0 ? bytes / ch.seconds / 1e9 : 0.0;
      const bool p2p = kind == CollectiveKind::AllToAll;
      std::cout << fmt::format("{:>15} {:>13.0f} {:>12.2f} {:>11.2f} {:>11.2f}  {:<10} {}\n", collective_name(kind),
                               bytes, ch.seconds * 1e6, algbw, algbw * bus_factor(kind, comm.ranks),
                               p2p ? "p2p" : nccl::algo_name(ch.algo), p2p ? "Simple" : nccl::proto_name(ch.proto));
    }
  }
  return 0;
}

}  // namespace dtsim::cli
