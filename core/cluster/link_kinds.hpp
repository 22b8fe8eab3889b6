// The kinds of link a cluster is described by, each in one traits table (link_kinds.cpp): the link between the
// devices of a node (cluster.intra_node.kind) and the node's NICs (cluster.nic.kind). A kind of a named generation
// or product gives the default of its rate key (cluster.intra_node.rate, cluster.nic.rate: a rate the scenario
// gives wins), its figure and the data sheet or specification it is read from in the table; `nvlink`, `pcie` and
// `custom` leave the rate key at its own default (300GB/s, 100Gbps). An explicit NVLink generation also decides the
// rate of one of its links, from which NCCL's model counts NVLinks per GPU (models/collectives/nccl/nccl_cluster.hpp);
// a PCIe generation, the GPU's PCIe link NCCL sees.
// Adding a kind: its enumerator below, its row in link_kinds.cpp (a switch with no default: -Wswitch asks for it)
// and its line in docs/collectives.md, Cluster presets (tests/core/scenario/cluster_preset_test.cpp holds the two
// together).
#pragma once

#include <span>
#include <string_view>

namespace dtsim {

enum class IntraLinkKind { NvLink, Pcie, NvLink3, NvLink4, NvLink5, Pcie3, Pcie4, Pcie5 };
enum class NicKind { Custom, IbHdr, IbNdr, IbXdr, Roce100, Roce200, Roce400, OmniPath100, Efa100, Tcpx200, Tcpxo200 };

struct IntraLinkTraits {
  IntraLinkKind kind = IntraLinkKind::NvLink;
  std::string_view name;  // as cluster.intra_node.kind spells it
  bool nvlink = true;     // NVLink through NVSwitch; false: PCIe between the GPUs
  int generation = 0;     // NVLink or PCIe generation; 0: the device's
  std::string_view rate;  // cluster.intra_node.rate's default as a user writes it (per device, per direction); "": none
  double link_rate = 0;   // bytes/s per direction of one NVLink of this generation; 0: the device's generation's
  std::string_view source;
};

// What a NIC's network stack sets in NCCL (models/collectives/nccl/): the latency its network plugin declares and
// the NCCL_* environment its vendor's plugin or profile exports. The defaults are NCCL's own transports' (IB verbs
// and sockets declare no latency and set nothing).
struct NcclStack {
  std::string_view name;         // the stack; "": NCCL's own transport
  double declared_latency = 0;   // us, ncclNetProperties::latency: NCCL adds it to its network latency (twice, Simple)
  int nvls_chunk = 128 * 1024;   // NCCL_NVLS_CHUNKSIZE (NCCL's default 128 KiB)
  int nvls_tree_max_chunk = -2;  // NCCL_NVLSTREE_MAX_CHUNKSIZE; -2: NCCL's own choice
  bool ll = true;                // NCCL_PROTO lets LL run
  bool rails_per_gpu = false;    // the plugin presents the NICs behind one GPU as one device of their summed rate
  std::string_view source;
};

struct NicTraits {
  NicKind kind = NicKind::Custom;
  std::string_view name;  // as cluster.nic.kind spells it
  std::string_view rate;  // cluster.nic.rate's default as a user writes it (per NIC, per direction); "": none
  std::string_view source;
  NcclStack stack;
};

// Every kind, in the enum's order.
std::span<const IntraLinkTraits> intra_link_kinds();
const IntraLinkTraits& intra_link(IntraLinkKind k);
std::span<const NicTraits> nic_kinds();
const NicTraits& nic_kind(NicKind k);

}  // namespace dtsim
