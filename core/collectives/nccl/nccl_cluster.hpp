// A dtsim cluster as NCCL's topology detection sees one of its nodes (nccl_graph.hpp's NodeTopology):
//   compute capability and PCIe generation: the node's device in the zoo (devices.yaml);
//   NVLinks per GPU: cluster.intra_node.kind nvlink: intra_node.rate / the rate of one link of the device's NVLink
//     generation (25 GB/s per direction up to NVLink 4, 50 GB/s from NVLink 5 on Blackwell), through NVSwitch;
//     NCCL counts each link at its own figure (nvlink_bw_per_link); pcie: no NVLink;
//   NICs: cluster.nic.count at cluster.nic.rate each; the CPU vendor: cluster.cpu.
#pragma once

#include "core/cluster/cluster.hpp"
#include "core/collectives/nccl/nccl_graph.hpp"

namespace dtsim::nccl {

// Throws InputError when the node's device is not a GPU of the zoo with a compute capability.
NodeTopology node_topology(const ClusterSpec& cluster, int node = 0);

}  // namespace dtsim::nccl
