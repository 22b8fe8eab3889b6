// Per-class kernel costs on a device (the rules are in kernel.hpp).
#include "models/zoo/kernel.hpp"

#include <algorithm>
#include <cmath>

#include "models/zoo/device.hpp"

namespace dtsim {
namespace {

struct ClassName {
  KernelClass cls;
  std::string_view name;
};
constexpr ClassName kClassNames[] = {
    {KernelClass::Layer, "layer"},
    {KernelClass::Gemm, "gemm"},
    {KernelClass::Conv, "conv"},
    {KernelClass::Attention, "attention"},
    {KernelClass::Softmax, "softmax"},
    {KernelClass::Elementwise, "elementwise"},
    {KernelClass::Norm, "norm"},
    {KernelClass::Embedding, "embedding"},
    {KernelClass::LayoutCopy, "layout_copy"},
};

// How an M x N output (times batch) runs in tiles of tm x tn: the useful fraction of the time (waves of one tile per
// SM, or, with fewer tiles than SMs, the reduction split over the SMs: tile padding only) and its tiles over the SMs.
struct Tiling {
  double fraction = 1;
  double waves = 0;
};
Tiling tiling(const KernelProfile& p, const GemmShape& s, double tm, double tn) {
  const double tiles = std::ceil(s.m / tm) * std::ceil(s.n / tn) * s.batch;
  const double slots = tiles < p.sms ? tiles : std::ceil(tiles / p.sms) * p.sms;
  return {s.m * s.n * s.batch / (slots * tm * tn), tiles / p.sms};
}

// The better of the tile and its transpose (none: 1, no waves).
Tiling best_tiling(const KernelProfile& p, const GemmShape& s) {
  if (!s.known() || p.sms <= 0) return {};
  const Tiling a = tiling(p, s, p.tile_m, p.tile_n);
  const Tiling b = tiling(p, s, p.tile_n, p.tile_m);
  return a.fraction >= b.fraction ? a : b;
}

// One product: its quantized FLOPs at `rate`, or its bytes at the memory rate, after the kernel's fixed time
// (GEMMs; `fixed` 0 for convolutions: kernel.hpp), added to `cost`.
void add_product(KernelCost& cost, const KernelProfile& p, double rate, double bandwidth, const GemmShape& s,
                 double flops, double mem_bytes, double fixed) {
  const Tiling t = best_tiling(p, s);
  const double compute = flops / t.fraction / rate;
  const double memory = mem_bytes / bandwidth;
  cost.compute += compute;
  cost.memory += memory;
  cost.fixed += fixed;
  cost.waves += t.waves;
  cost.seconds += fixed + std::max(compute, memory);
}

// A GEMM or an implicit-GEMM convolution at `rate` FLOP/s; backward: its input- and weight-gradient
// products (M x K over N, K x N over M), half the work each.
KernelCost gemm_like_cost(const KernelProfile& p, double rate, double bandwidth, const GemmShape& shape, double flops,
                          double mem_bytes, double fixed) {
  KernelCost cost;
  if (!shape.backward) {
    add_product(cost, p, rate, bandwidth, shape, flops, mem_bytes, fixed);
    return cost;
  }
  const GemmShape input{shape.m, shape.k, shape.n, shape.batch, false};
  const GemmShape weight{shape.k, shape.n, shape.m, shape.batch, false};
  add_product(cost, p, rate, bandwidth, input, flops / 2, mem_bytes / 2, fixed);
  add_product(cost, p, rate, bandwidth, weight, flops / 2, mem_bytes / 2, fixed);
  return cost;
}

// A kernel bound by the slower of its FLOPs and its bytes.
KernelCost roofline(double compute, double memory) { return {compute, memory, 0, std::max(compute, memory), 0}; }

}  // namespace

std::string_view kernel_class_name(KernelClass c) {
  for (const auto& [cls, name] : kClassNames) {
    if (cls == c) return name;
  }
  return "layer";
}

std::vector<std::string_view> kernel_class_names() {
  std::vector<std::string_view> names;
  for (const auto& entry : kClassNames) names.push_back(entry.name);
  return names;
}

std::optional<KernelClass> parse_kernel_class(std::string_view text) {
  for (const auto& [cls, name] : kClassNames) {
    if (name == text) return cls;
  }
  return std::nullopt;
}

bool KernelProfile::present() const {
  return std::any_of(gemm.begin(), gemm.end(), [](double f) { return f > 0; });
}

double KernelProfile::conv_at(Dtype d) const {
  const double c = conv[static_cast<size_t>(d)];
  return c > 0 ? c : gemm_at(d);
}

AttentionFigures KernelProfile::attention_for(AttentionBackend b) const {
  const AttentionFigures& own = attention[static_cast<size_t>(b)];
  return own.present() ? own : attention[static_cast<size_t>(AttentionBackend::Flash2)];
}

double gemm_quantization(const KernelProfile& p, const GemmShape& s) { return best_tiling(p, s).fraction; }

KernelBound KernelCost::bound() const {
  if (fixed > compute && fixed > memory) return KernelBound::Fixed;
  return compute >= memory ? KernelBound::Compute : KernelBound::Memory;
}

std::string_view kernel_bound_name(KernelBound b) {
  switch (b) {
    case KernelBound::Compute: return "compute";
    case KernelBound::Memory: return "memory";
    case KernelBound::Fixed: return "fixed";
  }
  return "compute";
}

double gemm_fixed_seconds(const DeviceSpec& device, Dtype dtype) {
  return device.kernels.present() && device.kernels.gemm_at(dtype) > 0 ? kGemmKernelSeconds : 0.0;
}

KernelCost kernel_cost(const DeviceSpec& device, double efficiency, Dtype dtype, KernelClass cls, double flops,
                       double mem_bytes, const GemmShape& shape, AttentionBackend attention, PowerState power) {
  const KernelProfile& p = device.kernels;
  const double peak = device.peak(dtype);
  const bool split = cls == KernelClass::Gemm && dtype == Dtype::Fp8 && shape.split_accumulate && p.fp8_split > 0;
  const double fraction = cls == KernelClass::Conv ? p.conv_at(dtype) : split ? p.fp8_split : p.gemm_at(dtype);
  const bool gemm_like = cls == KernelClass::Gemm || cls == KernelClass::Conv;
  const AttentionFigures figures = p.attention_for(attention);
  const bool unknown = (gemm_like && fraction <= 0) || (cls == KernelClass::Attention && !figures.present());
  if (cls == KernelClass::Layer || !p.present() || unknown) {
    return roofline(flops / (peak * efficiency), mem_bytes / device.mem_bandwidth);
  }
  const double bandwidth = device.mem_bandwidth * p.memory;
  switch (cls) {
    case KernelClass::Gemm:
      return gemm_like_cost(p, peak * fraction * (power == PowerState::Held ? p.held_at(dtype) : 1.0), bandwidth, shape,
                            flops, mem_bytes, gemm_fixed_seconds(device, dtype));
    case KernelClass::Conv: return gemm_like_cost(p, peak * fraction, bandwidth, shape, flops, mem_bytes, 0.0);
    case KernelClass::Attention: {
      const double figure = shape.backward ? figures.backward : figures.forward;
      const double factor =
          shape.known() ? attention_shape_factor(attention, shape.backward, shape.k, shape.n, shape.causal, shape.m)
                        : 1.0;
      return roofline(flops / (peak * figure * factor), mem_bytes / bandwidth);
    }
    case KernelClass::LayoutCopy:
      return roofline(0, mem_bytes / (device.mem_bandwidth * (p.layout_copy > 0 ? p.layout_copy : p.memory)));
    default: return roofline(flops / device.peak(Dtype::Fp32), mem_bytes / bandwidth);
  }
}

double kernel_time(const DeviceSpec& device, double efficiency, Dtype dtype, KernelClass cls, double flops,
                   double mem_bytes, const GemmShape& shape, AttentionBackend attention, PowerState power) {
  return kernel_cost(device, efficiency, dtype, cls, flops, mem_bytes, shape, attention, power).seconds;
}

}  // namespace dtsim
