// What a compute kernel costs on a device, by the kind of kernel it is.
//
// Layer tables (the CNNs, BERT, custom models) give whole layers: they run at peak x the device's
// (or cluster.efficiency's) single achieved fraction, or at the memory bandwidth, whichever is
// slower (the roofline). Transformer plans give kernels with a class, and devices whose zoo entry
// has a `kernels` section cost each class from published microbenchmarks instead:
//   GEMM       2 M N K FLOPs at peak x `gemm` (the best-shape fraction cuBLAS reaches), after
//              tile and wave quantization: the output is cut into tiles of `tile` (cuBLAS's
//              largest), the tiles run in waves of one per SM, and a partial wave or a partial tile
//              costs as much as a whole one (NVIDIA, Matrix Multiplication Background User's Guide,
//              sections 2.3 and 3): time = 2 K x waves x SMs x tile_m x tile_n / (peak x gemm),
//              taking the better of the tile and its transpose; at least its operands and result
//              at the achieved memory bandwidth. A backward GEMM is its two products (input
//              gradient M x K over N, weight gradient K x N over M), each costed so.
//              When the output has fewer tiles than the device has SMs, the reduction is split over
//              them (split-K, as cuBLAS and cuDNN do for weight gradients): only the tile padding
//              counts, not the idle SMs. Each product also takes a fixed kGemmKernelSeconds, what a
//              GEMM kernel costs beside its FLOPs and bytes (its launch on the device, prologue, first
//              tiles' loads and epilogue; XLA's measured matmuls take at least 4.9 us at 256^3).
//              Power (PowerState): `gemm` is the rate of a product between other kernels, the clock at its boost.
//              In a training step the GEMMs follow each other and hold the board at its power limit, the clock
//              lower: there (Held, the default) a GEMM runs at peak x `gemm` x `gemm_held`, the held factor of its
//              dtype (1 where the zoo has none), measured on an H200 as products back to back over products between
//              adds (bench/kernels/power_held.md: bf16 0.903, fp8 0.951). Burst is a GEMM timed alone, as a
//              microbenchmark times it (bench/kernels/gemm_run prices XLA's autotuner timings so).
//   FP8 accumulation: cuBLASLt runs an fp8 GEMM with fast accumulation (partial sums kept in the tensor cores' own
//              precision) or a split accumulator (promoted to fp32 as it goes: slower). Transformer Engine takes the
//              fast one forward and the split one for the input and weight gradients (transformer_engine/pytorch/
//              module/base.py: _2X_ACC_FPROP = False, _2X_ACC_DGRAD = True, _2X_ACC_WGRAD = True), as torchao's
//              Float8Linear does; a GemmShape's split_accumulate runs at `fp8_split` instead of `gemm`'s fp8, fitted by
//              bench/kernels/gemm_run on the H200's torch._scaled_mm GEMMs (split by default) timed back to back.
//   conv       a convolution as the implicit GEMM cuDNN runs (NVIDIA, Convolutional Layers User's
//              Guide, section 2: forward M = N P Q output pixels, N = K output channels, K = C R S),
//              costed as a GEMM of that shape at peak x `conv` (`gemm` where the zoo has no
//              convolution figure); its backward the data gradient (M x K over N) and the weight
//              gradient (K x N over M).
//   attention  a fused (flash) attention kernel: FLOPs at peak x the device's `attention` figure for the job's
//              backend (framework.attention_backend) and the kernel's pass, times its shape factor (head dimension,
//              sequence length, causal mask: models/zoo/attention.hpp); a backend the device has no figure for runs
//              at flash2's.
//   softmax, elementwise, norm, embedding: memory-bound kernels: bytes at memory bandwidth x
//              `memory`, or their FLOPs at the fp32 (non-tensor) peak if that is slower. A two-pass row kernel
//              (PyTorch's and apex's LayerNorm) adds the bytes of its second read that miss L2 (reread.hpp); the cost
//              model adds them to the op's bytes.
//   layout_copy  a copy of a tensor into another layout (PyTorch's copy of a permuted, non-contiguous view,
//              as torch.matmul makes of attention heads): bytes at memory bandwidth x `layout_copy`,
//              `memory` where the zoo has no figure.
// `gemm` and `conv` are fractions per dtype; a dtype the zoo has no figure for costs its GEMMs and
// convolutions as layers. Devices without a `kernels` section, and clusters that set
// cluster.efficiency, cost every class as a layer.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/dtype.hpp"
#include "models/zoo/attention.hpp"

namespace dtsim {

// What kind of kernel a compute op is.
enum class KernelClass { Layer, Gemm, Conv, Attention, Softmax, Elementwise, Norm, Embedding, LayoutCopy };

// The classes' names as layer tables write them (`class` column): layer, gemm, conv, attention,
// softmax, elementwise, norm, embedding, layout_copy.
std::string_view kernel_class_name(KernelClass c);
std::vector<std::string_view> kernel_class_names();
std::optional<KernelClass> parse_kernel_class(std::string_view text);

// A GEMM's shape (batched: `batch` independent products); all zero when unknown. A fused attention kernel gives its
// QK^T product's: m queries, n keys, k the head dimension, batch the heads, `causal` when the mask keeps each query
// to the keys before it.
struct GemmShape {
  double m = 0;
  double n = 0;
  double k = 0;
  double batch = 1;
  bool backward = false;  // the input- and weight-gradient products of this forward GEMM
  bool causal = false;
  // An fp8 GEMM that promotes its partial sums to fp32 as it goes (cuBLASLt's split accumulator, FP8 accumulation
  // above): Transformer Engine's and torchao's input- and weight-gradient GEMMs, torch._scaled_mm by default.
  bool split_accumulate = false;
  bool known() const { return m > 0 && n > 0 && k > 0; }
};

// A device's fused attention figures for one backend: the fraction of peak each pass reaches at head dimension 128
// without a mask on long sequences (models/zoo/attention.hpp); 0: none.
struct AttentionFigures {
  double forward = 0;
  double backward = 0;
  bool present() const { return forward > 0 && backward > 0; }
  bool operator==(const AttentionFigures&) const = default;
};

// A device's per-class kernel figures (devices.yaml `kernels`); gemm == 0: none.
struct KernelProfile {
  int sms = 0;       // streaming multiprocessors: one tile each per wave
  int tile_m = 256;  // the GEMM output tile
  int tile_n = 128;
  // Per dtype (indexed by Dtype), 0 where the zoo has no figure: the fraction of the dtype's peak a
  // large, wave-aligned GEMM reaches, and a convolution (0: the GEMM's).
  std::array<double, kDtypeCount> gemm{};
  std::array<double, kDtypeCount> conv{};
  std::array<double, kDtypeCount> gemm_held{};  // what `gemm` keeps at the power limit (0: no figure, 1)
  double fp8_split = 0;  // `gemm` for an fp8 GEMM with a split accumulator (FP8 accumulation above; 0: fp8's)
  std::array<AttentionFigures, kAttentionBackendCount> attention{};  // by AttentionBackend
  double memory = 1;       // fraction of the memory bandwidth streaming kernels reach
  double l2 = 0;           // bytes of L2 cache (0: no figure): where a two-pass kernel's second read hits (reread.hpp)
  double layout_copy = 0;  // fraction of it a copy of a permuted view reaches (0: `memory`)
  std::string source;
  bool present() const;
  double gemm_at(Dtype d) const { return gemm[static_cast<size_t>(d)]; }
  double conv_at(Dtype d) const;
  double held_at(Dtype d) const {
    return gemm_held[static_cast<size_t>(d)] > 0 ? gemm_held[static_cast<size_t>(d)] : 1;
  }
  // The backend's figures, or flash2's where the device has none for it (none at all: not present()).
  AttentionFigures attention_for(AttentionBackend b) const;
  bool operator==(const KernelProfile&) const = default;
};

struct DeviceSpec;

// A GEMM kernel's fixed time, seconds, on every device with kernel figures: fitted by bench/kernels/gemm_run on XLA's
// measured bf16 matmuls of an H100-class GPU (375 shapes, bench/kernels/published/xla_matmul_perf_table.csv) and
// shown on its f32 (TF32) ones and on the transformer GEMMs PyTorch ran on an H200 (bench/kernels/gemm.md;
// tests/models/zoo/kernel_test.cpp holds it to that file).
inline constexpr double kGemmKernelSeconds = 5.4e-6;

// The fixed time one GEMM product of `dtype` takes on `device`: kGemmKernelSeconds where the zoo has the device's
// kernel figures for the dtype, 0 where its GEMMs run as layers.
double gemm_fixed_seconds(const DeviceSpec& device, Dtype dtype);

// Whether a GEMM runs with the board at its power limit (Held: in a training step) or alone at its boost clock
// (Burst: a microbenchmark's kernel); see Power above.
enum class PowerState { Held, Burst };

// What bounds a kernel's time: its FLOPs, its bytes, or (small GEMMs) the kernel's fixed time.
enum class KernelBound { Compute, Memory, Fixed };
std::string_view kernel_bound_name(KernelBound b);  // compute, memory, fixed

// A kernel's time and its terms (rules above). A backward GEMM sums its two products' terms, so `seconds` (each
// product's fixed + max(compute, memory), added) can exceed fixed + max(compute, memory) of the sums.
struct KernelCost {
  double compute = 0;  // its FLOPs at the rate its class reaches (GEMMs: after tile and wave quantization)
  double memory = 0;   // its bytes at the bandwidth its class reaches
  double fixed = 0;    // a GEMM's fixed time (kGemmKernelSeconds a product)
  double seconds = 0;  // what it takes (kernel_time)
  double waves = 0;    // GEMMs and convolutions: output tiles over the SMs, summed over the products; 0: not tiled
  KernelBound bound() const;  // the largest of the three terms (compute where compute and memory tie)
};

// The kernel's time and terms on the device; `efficiency` is the layer fraction, `attention` the job's fused
// attention backend, `power` whether a GEMM is held at the power limit.
KernelCost kernel_cost(const DeviceSpec& device, double efficiency, Dtype dtype, KernelClass cls, double flops,
                       double mem_bytes, const GemmShape& shape = {},
                       AttentionBackend attention = AttentionBackend::Flash2, PowerState power = PowerState::Held);

// Seconds one kernel takes on the device: kernel_cost(...).seconds.
double kernel_time(const DeviceSpec& device, double efficiency, Dtype dtype, KernelClass cls, double flops,
                   double mem_bytes, const GemmShape& shape = {}, AttentionBackend attention = AttentionBackend::Flash2,
                   PowerState power = PowerState::Held);

// The fraction of a GEMM's time that does useful work after tile and wave quantization (1 for a
// shape of whole waves of whole tiles).
double gemm_quantization(const KernelProfile& p, const GemmShape& shape);

}  // namespace dtsim
