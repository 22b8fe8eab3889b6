// The device zoo: accelerators and CPU sockets with peak FLOP/s per dtype and memory figures.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/dtype.hpp"
#include "models/zoo/kernel.hpp"

namespace dtsim {

struct DeviceSpec {
  std::string name;         // zoo key, e.g. "a100_40gb"
  std::string description;  // e.g. "NVIDIA A100 SXM4 40GB"
  std::string source;       // data sheet the numbers come from
  double peak_fp32 = 0;     // dense FLOP/s
  double peak_tf32 = 0;     // 0 when the device has no tf32 mode (falls back to fp32)
  double peak_fp16 = 0;
  double peak_bf16 = 0;      // 0 when unsupported (falls back to fp32)
  double peak_fp8 = 0;       // 0 when the device has no fp8 tensor cores (model.fp8 is refused there)
  double mem_bandwidth = 0;  // bytes/s
  double mem_capacity = 0;   // bytes
  double efficiency = 0;     // typical achieved fraction of peak on large training kernels
  KernelProfile kernels;     // per-class kernel figures (kernel.hpp), when published ones exist
  // Contention (devices.yaml `contention`): the fraction of its compute rate the device keeps while
  // it also communicates (a collective's or a transfer's kernels take SMs and memory bandwidth);
  // 1: communication beside compute is free for the compute.
  double compute_under_comm = 1;
  std::string contention_source;
  // What NCCL's cost model reads (models/collectives/nccl/): the compute capability x 10 (80 for 8.0) and the PCIe
  // generation of the GPU's x16 host link; 0 for a CPU.
  int compute_capability = 0;
  int pcie_generation = 0;
  // The node the device usually comes in (devices.yaml `platform`): a cluster.preset whose links (NVLink kind, the
  // NICs' kind and number per GPU, the host CPU) fill a scenario that names no preset and none of those keys
  // (core/scenario/validate.cpp); "" where the device has none.
  std::string platform;

  // Peak for a dtype, falling back to fp32 where the device lacks the mode.
  double peak(Dtype d) const;
  bool operator==(const DeviceSpec&) const = default;
};

std::vector<std::string> device_names();
// Throws InputError naming the valid devices.
DeviceSpec load_device(std::string_view name);

}  // namespace dtsim
