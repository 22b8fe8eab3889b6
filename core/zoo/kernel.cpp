// Per-class kernel costs on a device (the rules are in kernel.hpp).
#include "core/zoo/kernel.hpp"

#include <algorithm>
#include <cmath>

#include "core/zoo/device.hpp"

namespace dtsim {
namespace {

// Useful fraction of the waves an M x N output (times batch) takes in tiles of tm x tn.
double tiled_fraction(const KernelProfile& p, const GemmShape& s, double tm, double tn) {
  const double tiles = std::ceil(s.m / tm) * std::ceil(s.n / tn) * s.batch;
  const double waves = std::ceil(tiles / p.sms);
  return s.m * s.n * s.batch / (waves * p.sms * tm * tn);
}

// One product: its quantized FLOPs at the GEMM rate, or its bytes at the memory rate.
double product_time(const KernelProfile& p, double peak, double bandwidth, const GemmShape& s, double flops,
                    double mem_bytes) {
  return std::max(flops / gemm_quantization(p, s) / (peak * p.gemm), mem_bytes / bandwidth);
}

}  // namespace

double gemm_quantization(const KernelProfile& p, const GemmShape& s) {
  if (!s.known() || p.sms <= 0) return 1.0;
  return std::max(tiled_fraction(p, s, p.tile_m, p.tile_n), tiled_fraction(p, s, p.tile_n, p.tile_m));
}

double kernel_time(const DeviceSpec& device, double efficiency, Dtype dtype, KernelClass cls, double flops,
                   double mem_bytes, const GemmShape& shape) {
  const KernelProfile& p = device.kernels;
  const double peak = device.peak(dtype);
  if (cls == KernelClass::Layer || !p.present()) {
    return std::max(flops / (peak * efficiency), mem_bytes / device.mem_bandwidth);
  }
  const double bandwidth = device.mem_bandwidth * p.memory;
  switch (cls) {
    case KernelClass::Gemm: {
      if (!shape.backward) return product_time(p, peak, bandwidth, shape, flops, mem_bytes);
      // Input gradient (M x K, over N) and weight gradient (K x N, over M), half the work each.
      const GemmShape input{shape.m, shape.k, shape.n, shape.batch, false};
      const GemmShape weight{shape.k, shape.n, shape.m, shape.batch, false};
      return product_time(p, peak, bandwidth, input, flops / 2, mem_bytes / 2) +
             product_time(p, peak, bandwidth, weight, flops / 2, mem_bytes / 2);
    }
    case KernelClass::Attention: return std::max(flops / (peak * p.attention), mem_bytes / bandwidth);
    default: return std::max(flops / device.peak(Dtype::Fp32), mem_bytes / bandwidth);
  }
}

}  // namespace dtsim
