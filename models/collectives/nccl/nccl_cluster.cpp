// A dtsim cluster's node as NCCL sees it (nccl_cluster.hpp).
#include "models/collectives/nccl/nccl_cluster.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim::nccl {

NodeTopology node_topology(const ClusterSpec& cluster, int node) {
  const DeviceSpec& d = cluster.device_at(node);
  if (d.compute_capability == 0) {
    throw InputError(
        fmt::format("NCCL's cost model needs a GPU: device '{}' has no compute capability in the device "
                    "zoo (a GPU such as a100_80gb, h100_sxm or h200)",
                    d.name));
  }
  NodeTopology t;
  t.compute_capability = d.compute_capability;
  const IntraLinkTraits& link = intra_link(cluster.intra_kind);
  if (link.nvlink) {
    // A named generation's link rate; else the device's generation's (NVLink 5 from compute capability 10.0 on).
    const double per_link = link.link_rate > 0 ? link.link_rate : d.compute_capability >= 100 ? 50e9 : 25e9;
    t.nvlinks = std::max(1, static_cast<int>(std::lround(cluster.intra.rate / per_link)));
    t.nvlink_bw = nvlink_bw_per_link(d.compute_capability);
  }
  // A named PCIe generation is the GPUs' link (a GPU runs at its slot's generation); else the device's own.
  t.gpu_pcie_bw = pcie_bw(std::max(1, !link.nvlink && link.generation > 0 ? link.generation : d.pcie_generation));
  t.nics = cluster.nics;
  t.nic_bw = cluster.nic.rate / 1e9;
  t.stack = nic_kind(cluster.nic_kind).stack;
  if (t.stack.rails_per_gpu && t.nics > cluster.devices_per_node && cluster.devices_per_node > 0) {
    t.nic_bw *= static_cast<double>(t.nics) / cluster.devices_per_node;
    t.nics = cluster.devices_per_node;
  }
  switch (cluster.host_cpu) {
    case HostCpu::Intel: t.cpu = Cpu::Intel; break;
    case HostCpu::Amd: t.cpu = Cpu::Amd; break;
    case HostCpu::Arm: t.cpu = Cpu::Arm; break;
  }
  return t;
}

}  // namespace dtsim::nccl
