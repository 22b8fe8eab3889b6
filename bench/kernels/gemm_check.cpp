// dtsim's GEMM cost (models/zoo/kernel.hpp: tile and wave quantization of the zoo's best-shape fraction) at each
// shape of a measured matmul table: bench/kernels/gemm_run reads its output into bench/kernels/gemm.md.
//
//   bench_gemm_check bench/kernels/published/xla_matmul_perf_table.csv
//
// prints `gpu_key,device,dtype,b,m,n,k,measured_us,predicted_us,fixed_us` for each row whose GPU is in the zoo and
// whose dtype dtsim prices: bf16 x bf16 -> bf16 as bf16, f32 x f32 -> f32 as tf32 (XLA's f32 dots run on the tensor
// cores: bench/kernels/published/SOURCES.md), f8e4m3fn x f8e4m3fn -> bf16 as fp8 (the H200 suite's torch._scaled_mm
// rows only: XLA's sm_90 fp8 rows pool helper kernels and run above the fp8 peak, SOURCES.md). sm_90 (an H100 or an
// H200: XLA does not record which) is the h100_sxm for bf16 and the h200 for tf32, the zoo's Hopper with a TF32 GEMM
// figure (the same SMs, clocks and TF32 peak); sm_100 is the b200; h200_torch (the H200 suite's rows, which gemm_run
// adds) the h200. The prediction is a forward GEMM of the batched shape, with its operands and result (b (m k + k n + m
// n) elements) as its memory traffic, as a transformer plan costs one (models/parallel/transformer_ops.cpp); fixed_us
// is the part of it that is the kernel's fixed time (kGemmKernelSeconds where the device has kernel figures for the
// dtype, else 0), which gemm_run fits.
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/base/dtype.hpp"
#include "models/zoo/device.hpp"
#include "models/zoo/kernel.hpp"

namespace {

struct Priced {
  dtsim::Dtype dtype;
  double bytes_per_element;
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, ',');) out.push_back(field);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_gemm_check TABLE.csv (gpu_key,b,m,n,k,dtype,flops_per_s)\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "bench_gemm_check: cannot read %s\n", argv[1]);
    return 2;
  }
  // (GPU key, dtype) -> the zoo's device.
  const std::map<std::pair<std::string, std::string>, std::string> devices = {
      {{"sm_90", "bf16xbf16->bf16"}, "h100_sxm"},  {{"sm_90", "f32xf32->f32"}, "h200"},
      {{"sm_100", "bf16xbf16->bf16"}, "b200"},     {{"sm_100", "f32xf32->f32"}, "b200"},
      {{"h200_torch", "bf16xbf16->bf16"}, "h200"}, {{"h200_torch", "f8e4m3fnxf8e4m3fn->bf16"}, "h200"}};
  const std::map<std::string, Priced> dtypes = {{"bf16xbf16->bf16", {dtsim::Dtype::Bf16, 2}},
                                                {"f32xf32->f32", {dtsim::Dtype::Tf32, 4}},
                                                {"f8e4m3fnxf8e4m3fn->bf16", {dtsim::Dtype::Fp8, 1}}};
  std::string line;
  std::getline(in, line);  // header
  std::printf("gpu_key,device,dtype,b,m,n,k,measured_us,predicted_us,fixed_us\n");
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split(line);
    if (f.size() != 7) continue;
    const auto dev = devices.find({f[0], f[5]});
    const auto dt = dtypes.find(f[5]);
    if (dev == devices.end() || dt == dtypes.end()) continue;
    const dtsim::DeviceSpec device = dtsim::load_device(dev->second);
    const double b = std::stod(f[1]), m = std::stod(f[2]), n = std::stod(f[3]), k = std::stod(f[4]);
    const double flops = 2 * b * m * n * k;
    const double measured = flops / std::stod(f[6]);
    const double bytes = b * (m * k + k * n + m * n) * dt->second.bytes_per_element;
    // XLA's autotuner timed each product alone (at its boost clock); the H200 suite ran them back to back.
    const dtsim::PowerState power = f[0] == "h200_torch" ? dtsim::PowerState::Held : dtsim::PowerState::Burst;
    // torch._scaled_mm's default (use_fast_accum=False) splits its accumulator (models/zoo/kernel.hpp).
    const bool split = f[0] == "h200_torch" && dt->second.dtype == dtsim::Dtype::Fp8;
    const double predicted =
        dtsim::kernel_time(device, device.efficiency, dt->second.dtype, dtsim::KernelClass::Gemm, flops, bytes,
                           dtsim::GemmShape{m, n, k, b, false, false, split}, dtsim::AttentionBackend::Flash2, power);
    const double fixed = dtsim::gemm_fixed_seconds(device, dt->second.dtype);
    std::printf("%s,%s,%s,%s,%s,%s,%s,%.3f,%.3f,%.3f\n", f[0].c_str(), dev->second.c_str(), f[5].c_str(), f[1].c_str(),
                f[2].c_str(), f[3].c_str(), f[4].c_str(), measured * 1e6, predicted * 1e6, fixed * 1e6);
  }
  return 0;
}
