// The link kinds' tables (link_kinds.hpp). Rates are per direction: a data sheet's NVLink figure counts both
// directions and is halved here; an NVLink's own rate is its generation's per-direction figure (NVLink 3 and 4:
// 25 GB/s; NVLink 5: 50 GB/s). PCIe x16 rates are the specification's data rate after its 128b/130b encoding
// (GT/s x 16 lanes x 128/130 / 8 bits): the most the link layer can carry, as a data sheet's NVLink and NIC rates
// are; the packets' headers take more by payload size, which dtsim does not model. NIC rates are the port's line rate.
#include "core/cluster/link_kinds.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>

#include "core/base/error.hpp"

namespace dtsim {
namespace {

constexpr std::optional<IntraLinkTraits> intra_entry(IntraLinkKind k) {
  using K = IntraLinkKind;
  switch (k) {
    case K::NvLink:
      return IntraLinkTraits{k,
                             "nvlink",
                             true,
                             0,
                             "",
                             0,
                             "NVLink of the device's generation (its compute capability) at cluster.intra_node.rate"};
    case K::Pcie:
      return IntraLinkTraits{
          k, "pcie", false, 0, "", 0, "PCIe between the GPUs, of the device's generation (devices.yaml, pcie)"};
    case K::NvLink3:
      return IntraLinkTraits{k,
                             "nvlink3",
                             true,
                             3,
                             "300GB/s",
                             25e9,
                             "NVIDIA A100 Tensor Core GPU data sheet (2021): NVLink 600 GB/s (A100 SXM, both "
                             "directions); NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 12 "
                             "third-generation NVLinks per GPU, 25 GB/s per direction each"};
    case K::NvLink4:
      return IntraLinkTraits{k,
                             "nvlink4",
                             true,
                             4,
                             "450GB/s",
                             25e9,
                             "NVIDIA H100 Tensor Core GPU data sheet (2023) and H200 data sheet (2024): NVLink 900 "
                             "GB/s (SXM, both directions); NVIDIA H100 Tensor Core GPU Architecture whitepaper "
                             "(2022): 18 fourth-generation NVLinks per GPU, 25 GB/s per direction each"};
    case K::NvLink5:
      return IntraLinkTraits{k,
                             "nvlink5",
                             true,
                             5,
                             "900GB/s",
                             50e9,
                             "NVIDIA DGX B200 data sheet (2024): 1.8 TB/s of NVLink per GPU (both directions); NVIDIA "
                             "Blackwell architecture technical brief (2024): 18 fifth-generation NVLinks per GPU, "
                             "100 GB/s each both ways, 50 GB/s per direction"};
    case K::Pcie3:
      return IntraLinkTraits{k,
                             "pcie3",
                             false,
                             3,
                             "15.75GB/s",
                             0,
                             "PCI-SIG PCI Express Base Specification 3.0 (2010): 8 GT/s per lane, 128b/130b "
                             "encoding: x16 carries 8 x 16 x 128/130 / 8 = 15.75 GB/s per direction (16 before "
                             "the encoding)"};
    case K::Pcie4:
      return IntraLinkTraits{k,
                             "pcie4",
                             false,
                             4,
                             "31.5GB/s",
                             0,
                             "PCI-SIG PCI Express Base Specification 4.0 (2017): 16 GT/s per lane, 128b/130b: x16 "
                             "carries 31.5 GB/s per direction (32 before the encoding)"};
    case K::Pcie5:
      return IntraLinkTraits{k,
                             "pcie5",
                             false,
                             5,
                             "63GB/s",
                             0,
                             "PCI-SIG PCI Express Base Specification 5.0 (2019): 32 GT/s per lane, 128b/130b: x16 "
                             "carries 63 GB/s per direction (64 before the encoding)"};
  }
  return std::nullopt;  // past the last kind
}

constexpr std::optional<NicTraits> nic_entry(NicKind k) {
  using K = NicKind;
  switch (k) {
    case K::Custom: return NicTraits{k, "custom", "", "any NIC, at cluster.nic.rate", NcclStack{}};
    case K::IbHdr:
      return NicTraits{k, "ib_hdr", "200Gbps",
                       "InfiniBand Trade Association roadmap: HDR 4x, 200 Gb/s; NVIDIA ConnectX-6 VPI data sheet: HDR "
                       "200 Gb/s per port (DGX A100's compute NICs)",
                       NcclStack{}};
    case K::IbNdr:
      return NicTraits{k, "ib_ndr", "400Gbps",
                       "InfiniBand Trade Association roadmap: NDR 4x, 400 Gb/s; NVIDIA ConnectX-7 data sheet: NDR "
                       "400 Gb/s per port (DGX H100 and H200's compute NICs)",
                       NcclStack{}};
    case K::IbXdr:
      return NicTraits{k, "ib_xdr", "800Gbps",
                       "InfiniBand Trade Association roadmap: XDR 4x, 800 Gb/s; NVIDIA ConnectX-8 SuperNIC data sheet "
                       "(2024): XDR 800 Gb/s",
                       NcclStack{}};
    case K::Roce100:
      return NicTraits{k, "roce_100", "100Gbps",
                       "IEEE 802.3 100 Gb/s Ethernet (802.3bj, 802.3cd), RDMA over it as RoCE v2 (IBTA InfiniBand "
                       "Architecture Specification, Annex A17)",
                       NcclStack{}};
    case K::Roce200:
      return NicTraits{k, "roce_200", "200Gbps", "IEEE 802.3bs-2017 (and 802.3cd) 200 Gb/s Ethernet, RoCE v2",
                       NcclStack{}};
    case K::Roce400:
      return NicTraits{k, "roce_400", "400Gbps", "IEEE 802.3bs-2017 400 Gb/s Ethernet, RoCE v2", NcclStack{}};
    case K::OmniPath100:
      return NicTraits{k, "omnipath_100", "100Gbps",
                       "Intel Omni-Path Architecture 100 Series Host Fabric Interface product brief: 100 Gb/s per "
                       "port",
                       NcclStack{}};
    case K::Efa100:
      return NicTraits{k, "efa_100", "100Gbps",
                       "AWS Elastic Fabric Adapter, one 100 Gb/s network card each: p4d/p4de 400 Gbps as 4 "
                       "(aws.amazon.com/ec2/instance-types/p4/), p5 up to 32 network cards and 3,200 Gbps (EC2 User "
                       "Guide, 'Maximize network bandwidth on accelerated instances with EFA')",
                       NcclStack{"aws-ofi-nccl", 75.0, 512 * 1024, 512 * 1024, true, true,
                                 "aws/aws-ofi-nccl @ 2daf7d30, src/platform-aws.cpp: p4d, p4de, p5 and p5e declare "
                                 "75 us to NCCL (since d87d61e0, 2023-05-31); p5 and p5e export NCCL_NVLS_CHUNKSIZE "
                                 "and NCCL_NVLSTREE_MAX_CHUNKSIZE 524288 (since 3defe9e2, 2024-04-03); "
                                 "src/nccl_ofi_rdma.cpp: the RDMA protocol reports a GPU's group of rails as one "
                                 "device at the group's summed port speed"}};
    case K::Tcpx200:
      return NicTraits{k, "tcpx_200", "200Gbps",
                       "Google Cloud GPUDirect-TCPX on A3 High (cloud.google.com/compute/docs/gpus/gpudirect): 4 data "
                       "NICs of 200 Gbps beside the primary NIC (1 Tbps in all)",
                       NcclStack{}};
    case K::Tcpxo200:
      return NicTraits{k, "tcpxo_200", "200Gbps",
                       "Google Cloud GPUDirect-TCPXO on A3 Mega (cloud.google.com/compute/docs/gpus/gpudirect): 8 data "
                       "NICs of 200 Gbps beside the primary NIC (1.8 Tbps in all)",
                       NcclStack{"nccl-plugin-gpudirect-tcpxo", 0.0, 128 * 1024, 128 * 1024, false, false,
                                 "google/nccl-plugin-gpudirect-tcpxo @ 04815d1, tcpxo_scripts/nccl-env-profile.sh: "
                                 "NCCL_PROTO=Simple,LL128, NCCL_NVLSTREE_MAX_CHUNKSIZE=131072; "
                                 "tcpdirect_plugin/fastrak_offload/nccl_shim.cc declares latency 0"}};
  }
  return std::nullopt;
}

template <typename E, typename T, std::optional<T> (*Entry)(E)>
constexpr size_t count_entries() {
  size_t n = 0;
  while (Entry(static_cast<E>(n))) ++n;
  return n;
}

template <typename E, typename T, std::optional<T> (*Entry)(E)>
constexpr auto make_table() {
  std::array<T, count_entries<E, T, Entry>()> table{};
  for (size_t i = 0; i < table.size(); ++i) table[i] = *Entry(static_cast<E>(i));
  return table;
}

constexpr auto kIntra = make_table<IntraLinkKind, IntraLinkTraits, intra_entry>();
constexpr auto kNics = make_table<NicKind, NicTraits, nic_entry>();

template <typename Table>
const auto& row(const Table& table, size_t i, const char* what) {
  if (i >= table.size()) throw RuntimeError(fmt::format("{} {} has no entry", what, i));
  return table[i];
}

}  // namespace

std::span<const IntraLinkTraits> intra_link_kinds() { return kIntra; }
const IntraLinkTraits& intra_link(IntraLinkKind k) { return row(kIntra, static_cast<size_t>(k), "intra-node link"); }
std::span<const NicTraits> nic_kinds() { return kNics; }
const NicTraits& nic_kind(NicKind k) { return row(kNics, static_cast<size_t>(k), "NIC kind"); }

}  // namespace dtsim
