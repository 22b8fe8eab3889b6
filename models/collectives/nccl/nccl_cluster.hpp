// A dtsim cluster as NCCL's topology detection sees one of its nodes (nccl_graph.hpp's NodeTopology):
//   compute capability and PCIe generation: the node's device in the zoo (devices.yaml);
//   NVLinks per GPU: cluster.intra_node.kind nvlink3, nvlink4, nvlink5: intra_node.rate / the rate of one link of
//     that generation (25 GB/s per direction for NVLink 3 and 4, 50 GB/s for NVLink 5; core/cluster/link_kinds.cpp);
//     nvlink: of the device's generation (25 GB/s up to Hopper, 50 GB/s from Blackwell, compute capability 10.0);
//     through NVSwitch; NCCL counts each link at its own figure (nvlink_bw_per_link); pcie kinds: no NVLink, and
//     pcie3/4/5 is the GPUs' PCIe generation where pcie (and every NVLink kind) takes the device's;
//   NICs: cluster.nic.count at cluster.nic.rate each, as the NIC kind's network stack shows them to NCCL (a plugin
//     that groups the NICs behind a GPU into one device: nics = GPUs per node at the summed rate), with what the
//     stack sets in NCCL (NodeTopology::stack: core/cluster/link_kinds.hpp's NcclStack); the CPU vendor: cluster.cpu.
#pragma once

#include "core/cluster/cluster.hpp"
#include "models/collectives/nccl/nccl_graph.hpp"

namespace dtsim::nccl {

// Throws InputError when the node's device is not a GPU of the zoo with a compute capability.
NodeTopology node_topology(const ClusterSpec& cluster, int node = 0);

}  // namespace dtsim::nccl
