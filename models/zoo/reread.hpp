// Kernels that read their rows twice: what the second read costs on a device.
//
// PyTorch's LayerNorm (aten/src/ATen/native/cuda/layer_norm_kernel.cu, vectorized_layer_norm_kernel) and apex's
// FusedLayerNorm run a block of 128 threads a row: a first pass reads the row for its mean and variance, a second
// reads it again to normalise it, then writes it. Their backward's input gradient (layer_norm_grad_input_kernel,
// the same blocks) reads the output gradient and the input for two row sums, then both again for the gradient.
// The second read comes from L2 while the rows in flight fit there, else from memory:
//   rows in flight W = SMs x rows resident per SM x row bytes (rows_resident_per_sm: 128-thread blocks),
//   P(hit) = min(1, kL2RowShare x L2 / W), bytes from memory = re-read bytes x (1 - P(hit)).
// kL2RowShare is fitted by bench/kernels/memory_fit.py on NeuSight's measured fp32 LayerNorms of V100 and A100 40GB
// and checked there on five other GPUs and an H200 (bench/kernels/memory.md; tests/models/zoo/reread_test.cpp holds
// the constant to that file). Kernels that keep the row in registers (Transformer Engine's tuned LayerNorms,
// torch.compile's persistent reductions) read it once: their ops carry no Reread.
#pragma once

namespace dtsim {

struct DeviceSpec;

// The rows a kernel reads again: each row's bytes (of every tensor it re-reads, together), and the bytes read again
// in all. None: bytes 0.
struct Reread {
  double row_bytes = 0;
  double bytes = 0;
  bool on() const { return bytes > 0 && row_bytes > 0; }
  bool operator==(const Reread&) const = default;
};

// The share of L2 the rows in flight keep (the fit of bench/kernels/memory.md).
inline constexpr double kL2RowShare = 0.15;

// Rows of 128-thread blocks resident on one SM at compute capability `cc` x 10: min(threads per SM / 128, blocks per
// SM) from the CUDA C++ Programming Guide's table 'Technical Specifications per Compute Capability' (2,048 threads and
// 32 blocks at 6.x, 7.0, 8.0, 9.0 and 10.0, but 1,024 and 16 at 7.5, 1,536 and 16 at 8.6 and 8.7, 1,536 and 24 at
// 8.9); other capabilities take 2,048 and 32.
int rows_resident_per_sm(int cc);

// The bytes of the re-read that come from memory on `device`; 0 where the zoo has no L2 or SM count for it.
double reread_memory_bytes(const DeviceSpec& device, const Reread& r);

}  // namespace dtsim
