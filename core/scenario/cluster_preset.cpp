// The cluster presets' table (cluster_preset.hpp). Each value is what the system's data sheet or its vendor's page
// says; the link kinds' rates and their sources are in core/cluster/link_kinds.cpp. Only the compute fabric's NICs
// count (a DGX's storage and management NICs are left out). bench/collectives/published/ holds nccl-tests curves
// measured on the cloud systems (SOURCES.md: their hardware and where it is documented).
#include "core/scenario/cluster_preset.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>

#include "core/base/error.hpp"

namespace dtsim {
namespace {

constexpr PresetSetting kDgxA100[] = {
    {"cluster.device", "a100_80gb",
     "NVIDIA DGX A100 data sheet (2020, the 640 GB system): 8x NVIDIA A100 80GB Tensor Core GPUs"},
    {"cluster.devices_per_node", "8", "the same data sheet: 8 GPUs"},
    {"cluster.intra_node.kind", "nvlink3",
     "the same: 6x NVIDIA NVSwitch, 600 GB/s of GPU-to-GPU bandwidth per GPU (third-generation NVLink)"},
    {"cluster.nic.kind", "ib_hdr",
     "the same: 8x single-port Mellanox ConnectX-6 VPI, 200 Gb/s HDR InfiniBand (the compute fabric)"},
    {"cluster.nic.count", "8", "the same: 8 compute NICs, one per GPU"},
    {"cluster.cpu", "amd", "the same: dual AMD Rome 7742, 128 cores in all"},
};

constexpr PresetSetting kDgxH100[] = {
    {"cluster.device", "h100_sxm", "NVIDIA DGX H100 data sheet (2023): 8x NVIDIA H100 Tensor Core GPUs (SXM5)"},
    {"cluster.devices_per_node", "8", "the same data sheet: 8 GPUs, 640 GB in all"},
    {"cluster.intra_node.kind", "nvlink4",
     "the same: 4x NVIDIA NVSwitch, 18 NVLink connections per GPU, 900 GB/s GPU-to-GPU (fourth-generation NVLink)"},
    {"cluster.nic.kind", "ib_ndr",
     "the same: 4x OSFP ports serving 8x single-port NVIDIA ConnectX-7 VPI, up to 400 Gb/s InfiniBand"},
    {"cluster.nic.count", "8", "the same: 8 compute NICs, one per GPU"},
    {"cluster.cpu", "intel", "the same: dual Intel Xeon Platinum 8480C, 112 cores in all"},
};

constexpr PresetSetting kDgxH200[] = {
    {"cluster.device", "h200", "NVIDIA DGX H200 data sheet (2024): 8x NVIDIA H200 Tensor Core GPUs, 1,128 GB in all"},
    {"cluster.devices_per_node", "8", "the same data sheet: 8 GPUs"},
    {"cluster.intra_node.kind", "nvlink4",
     "the same: 4x NVIDIA NVSwitch, 900 GB/s GPU-to-GPU (fourth-generation NVLink)"},
    {"cluster.nic.kind", "ib_ndr",
     "the same: 4x OSFP ports serving 8x single-port NVIDIA ConnectX-7 VPI, up to 400 Gb/s InfiniBand"},
    {"cluster.nic.count", "8", "the same: 8 compute NICs, one per GPU"},
    {"cluster.cpu", "intel", "the same: dual Intel Xeon Platinum 8480C, 112 cores in all"},
};

constexpr PresetSetting kDgxB200[] = {
    {"cluster.device", "b200",
     "NVIDIA DGX B200 data sheet (2024): 8x NVIDIA Blackwell GPUs, 1,440 GB of GPU memory in all"},
    {"cluster.devices_per_node", "8", "the same data sheet: 8 GPUs"},
    {"cluster.intra_node.kind", "nvlink5",
     "the same: fifth-generation NVLink through 2 NVLink Switch chips, 14.4 TB/s aggregate (1.8 TB/s per GPU)"},
    {"cluster.nic.kind", "ib_ndr",
     "the same: 4 OSFP ports serving 8 single-port ConnectX-7 VPI, up to 400 Gb/s InfiniBand or Ethernet"},
    {"cluster.nic.count", "8", "the same: 8 compute NICs, one per GPU"},
    {"cluster.cpu", "intel", "the same: 2 Intel Xeon Platinum 8570, 112 cores in all"},
};

// Meta's Grand Teton nodes of the 24K-GPU RoCE cluster Llama 3 405B was trained on: an HGX H100 baseboard whose GPUs
// reach each other over RoCE, one 400 Gb/s NIC per GPU.
constexpr PresetSetting kHgxH100Roce[] = {
    {"cluster.device", "h100_sxm",
     "A. Grattafiori et al., The Llama 3 Herd of Models (arXiv 2407.21783, 2024), 3.3.1: H100 GPUs at 700 W TDP with "
     "80 GB HBM3 on Meta's Grand Teton AI server platform"},
    {"cluster.devices_per_node", "8", "the same section: each server is equipped with eight GPUs and two CPUs"},
    {"cluster.intra_node.kind", "nvlink4",
     "the same section: within a server the eight GPUs are connected via NVLink (Grand Teton's HGX H100 baseboard: "
     "NVLink 4 through NVSwitch)"},
    {"cluster.nic.kind", "roce_400",
     "the same section: Llama 3 405B used a RoCE fabric (Arista 7800 and Minipack2 OCP rack switches) with 400 Gbps "
     "interconnects between GPUs"},
    {"cluster.nic.count", "8", "the same: one 400 Gbps NIC per GPU"},
    {"cluster.cpu", "intel", "OCP Grand Teton specification: a dual-socket Intel Xeon Sapphire Rapids host"},
};

constexpr PresetSetting kAwsP4de[] = {
    {"cluster.device", "a100_80gb", "aws.amazon.com/ec2/instance-types/p4/: p4de.24xlarge, 8 NVIDIA A100 80GB GPUs"},
    {"cluster.devices_per_node", "8", "the same page: 8 GPUs"},
    {"cluster.intra_node.kind", "nvlink3", "the same page: 600 GB/s NVSwitch GPU interconnect (NVLink 3)"},
    {"cluster.nic.kind", "efa_100", "the same page: 400 Gbps Elastic Fabric Adapter networking, 4 x 100 Gbps"},
    {"cluster.nic.count", "4", "the same page: 4 EFA network cards"},
    {"cluster.cpu", "intel", "the same page: 2nd Generation Intel Xeon Scalable processors (Cascade Lake P-8275CL)"},
};

constexpr PresetSetting kAwsP5[] = {
    {"cluster.device", "h100_sxm", "aws.amazon.com/ec2/instance-types/p5/: p5.48xlarge, 8 NVIDIA H100 80GB GPUs"},
    {"cluster.devices_per_node", "8", "the same page: 8 GPUs"},
    {"cluster.intra_node.kind", "nvlink4", "the same page: 900 GB/s NVSwitch GPU interconnect (NVLink 4)"},
    {"cluster.nic.kind", "efa_100",
     "the same page: 3,200 Gbps of second-generation EFA networking; EC2 User Guide, 'Maximize network bandwidth on "
     "accelerated instances with EFA': up to 32 network cards"},
    {"cluster.nic.count", "32",
     "32 network cards of 100 Gbps (aws-samples/awsome-distributed-training, micro-benchmarks/nccl-tests/README.md: "
     "'Selected Provider is efa (found 32 nics)')"},
    {"cluster.cpu", "amd", "the same page: 3rd Generation AMD EPYC processors (AMD EPYC 7R13)"},
};

constexpr PresetSetting kGcpA3High[] = {
    {"cluster.device", "h100_sxm",
     "cloud.google.com/compute/docs/accelerator-optimized-machines, A3 machine series: a3-highgpu-8g, 8 NVIDIA H100 "
     "80GB GPUs"},
    {"cluster.devices_per_node", "8", "the same page: 8 GPUs"},
    {"cluster.intra_node.kind", "nvlink4", "the same page: NVLink 4 through NVSwitch between the H100 SXM GPUs"},
    {"cluster.nic.kind", "tcpx_200",
     "cloud.google.com/compute/docs/gpus/gpudirect: GPUDirect-TCPX on A3 High (dstack's gcp.md: 'A3 High | H100:8 | 1 "
     "Tbps | GPUDirect-TCPX')"},
    {"cluster.nic.count", "4", "the same page: 4 data NICs of 200 Gbps beside the primary NIC"},
    {"cluster.cpu", "intel",
     "the accelerator-optimized machines page: A3, 4th Generation Intel Xeon Scalable (Sapphire Rapids)"},
};

constexpr PresetSetting kGcpA3Mega[] = {
    {"cluster.device", "h100_sxm",
     "cloud.google.com/compute/docs/accelerator-optimized-machines, A3 machine series: a3-megagpu-8g, 8 NVIDIA H100 "
     "80GB GPUs"},
    {"cluster.devices_per_node", "8", "the same page: 8 GPUs"},
    {"cluster.intra_node.kind", "nvlink4", "the same page: NVLink 4 through NVSwitch between the H100 SXM GPUs"},
    {"cluster.nic.kind", "tcpxo_200",
     "cloud.google.com/compute/docs/gpus/gpudirect: GPUDirect-TCPXO on A3 Mega (dstack's gcp.md: 'A3 Mega | H100:8 | "
     "1.8 Tbps | GPUDirect-TCPXO')"},
    {"cluster.nic.count", "8", "the same page: 8 data NICs of 200 Gbps beside the primary NIC"},
    {"cluster.cpu", "intel",
     "the accelerator-optimized machines page: A3, 4th Generation Intel Xeon Scalable (Sapphire Rapids)"},
};

constexpr PresetSetting kAzureNdH100V5[] = {
    {"cluster.device", "h100_sxm",
     "learn.microsoft.com/azure/virtual-machines/nd-h100-v5-series: Standard_ND96isr_H100_v5, 8 NVIDIA H100 Tensor "
     "Core GPUs (SXM)"},
    {"cluster.devices_per_node", "8", "the same page: 8 GPUs"},
    {"cluster.intra_node.kind", "nvlink4", "the same page: the GPUs connected by NVLink 4.0"},
    {"cluster.nic.kind", "ib_ndr", "the same page: 400 Gb/s NVIDIA Quantum-2 CX7 InfiniBand per GPU"},
    {"cluster.nic.count", "8", "the same page: one per GPU, 3.2 Tb/s per VM"},
    {"cluster.cpu", "intel", "the same page: 4th Generation Intel Xeon Scalable processors (Sapphire Rapids)"},
};

constexpr std::optional<ClusterPresetTraits> entry(ClusterPreset p) {
  using P = ClusterPreset;
  switch (p) {
    case P::None: return ClusterPresetTraits{p, "none", "none: the cluster keys alone", {}};
    case P::DgxA100: return ClusterPresetTraits{p, "dgx_a100", "NVIDIA DGX A100 (640 GB)", kDgxA100};
    case P::DgxH100: return ClusterPresetTraits{p, "dgx_h100", "NVIDIA DGX H100", kDgxH100};
    case P::DgxH200: return ClusterPresetTraits{p, "dgx_h200", "NVIDIA DGX H200", kDgxH200};
    case P::DgxB200: return ClusterPresetTraits{p, "dgx_b200", "NVIDIA DGX B200", kDgxB200};
    case P::HgxH100Roce:
      return ClusterPresetTraits{p, "hgx_h100_roce", "HGX H100 over 400 Gb/s RoCE (Meta Grand Teton)", kHgxH100Roce};
    case P::AwsP4de: return ClusterPresetTraits{p, "aws_p4de", "AWS EC2 p4de.24xlarge", kAwsP4de};
    case P::AwsP5: return ClusterPresetTraits{p, "aws_p5", "AWS EC2 p5.48xlarge", kAwsP5};
    case P::GcpA3High: return ClusterPresetTraits{p, "gcp_a3_high", "Google Cloud a3-highgpu-8g", kGcpA3High};
    case P::GcpA3Mega: return ClusterPresetTraits{p, "gcp_a3_mega", "Google Cloud a3-megagpu-8g", kGcpA3Mega};
    case P::AzureNdH100V5:
      return ClusterPresetTraits{p, "azure_nd_h100_v5", "Azure ND H100 v5 (Standard_ND96isr_H100_v5)", kAzureNdH100V5};
  }
  return std::nullopt;  // past the last preset
}

constexpr size_t count_presets() {
  size_t n = 0;
  while (entry(static_cast<ClusterPreset>(n))) ++n;
  return n;
}

constexpr std::array<ClusterPresetTraits, count_presets()> kTable = [] {
  std::array<ClusterPresetTraits, count_presets()> table{};
  for (size_t i = 0; i < table.size(); ++i) table[i] = *entry(static_cast<ClusterPreset>(i));
  return table;
}();

}  // namespace

std::span<const ClusterPresetTraits> cluster_presets() { return kTable; }

const ClusterPresetTraits& cluster_preset(ClusterPreset p) {
  const auto i = static_cast<size_t>(p);
  if (i >= kTable.size()) throw RuntimeError(fmt::format("cluster preset {} has no entry", i));
  return kTable[i];
}

}  // namespace dtsim
