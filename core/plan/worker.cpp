// The worker's forward and backward pass and the optimizer step, shared by every strategy.
#include "core/plan/worker.hpp"

#include <fmt/format.h>

#include "core/plan/transformer_pass.hpp"

namespace dtsim {

Op new_op(RankProgram& r, std::string label, Stream stream, Phase phase, std::vector<int> deps, OpBody body) {
  Op op;
  op.id = static_cast<int>(r.ops.size());
  op.label = std::move(label);
  op.stream = stream;
  op.phase = phase;
  op.deps = std::move(deps);
  op.body = std::move(body);
  return op;
}

Op comm_op(RankProgram& r, std::string label, Stream stream, std::vector<int> deps, OpBody body) {
  return new_op(r, std::move(label), stream, Phase::Communication, std::move(deps), std::move(body));
}

namespace {

// Activation elements a layer reads and writes per sample: the table's, else 2 x its output forward
// and 3 x backward.
double activation_traffic(const Layer& layer, bool backward) {
  return backward ? (layer.bwd_traffic >= 0 ? layer.bwd_traffic : 3 * layer.activations)
                  : (layer.fwd_traffic >= 0 ? layer.fwd_traffic : 2 * layer.activations);
}

// framework.memory_format nchw: cuDNN transposes a tensor-core convolution's activations to NHWC and
// its result back, in each pass (forward; data and weight gradients backward): each tensor the
// convolution reads or writes is read and written once more (the filters, 0.4 % of ResNet-50's
// bytes at batch 256, are left out).
bool transposes(const JobSpec& job, const Layer& layer) {
  const Dtype d = job.model.dtype;
  return job.framework.memory_format == MemoryFormat::Nchw && layer.cls == KernelClass::Conv &&
         (d == Dtype::Fp16 || d == Dtype::Bf16 || d == Dtype::Tf32);
}

// framework.mixed_precision autocast in a 16-bit dtype: the layer's fp32 weights (GEMMs, convolutions and whole-layer
// rows; norms keep theirs in fp32) are cast to 16 bits each forward and their gradient back to fp32 each backward:
// one memory-bound kernel each, 4 + B bytes a parameter (the CNN tables are one micro-batch: nothing is summed).
bool casts_weights(const JobSpec& job, const Layer& layer) {
  return job.framework.mixed_precision == MixedPrecision::Autocast && dtype_bytes(job.model.dtype) < 4 &&
         layer.params > 0 &&
         (layer.cls == KernelClass::Gemm || layer.cls == KernelClass::Conv || layer.cls == KernelClass::Layer);
}

ComputeOp weight_cast_op(const Layer& layer, Dtype dtype) {
  ComputeOp op{0, layer.params * (4 + dtype_bytes(dtype)), dtype};
  op.cls = KernelClass::Elementwise;
  return op;
}

ComputeOp transpose_op(const Layer& layer, double batch, Dtype dtype, bool backward) {
  ComputeOp op{0, 2 * activation_traffic(layer, backward) * batch * dtype_bytes(dtype), dtype};
  op.cls = KernelClass::Elementwise;
  return op;
}

}  // namespace

ComputeOp layer_op(const Layer& layer, double batch, Dtype dtype, bool backward) {
  // Weights are read forward, read and their gradient written backward; activations as the table says.
  const double traffic = activation_traffic(layer, backward);
  ComputeOp op{backward ? layer.bwd_flops * batch : layer.fwd_flops * batch,
               ((backward ? 2 : 1) * layer.params + traffic * batch) * dtype_bytes(dtype), dtype};
  op.cls = layer.cls;
  op.gemm = GemmShape{layer.gemm_m * batch, layer.gemm_n, layer.gemm_k, 1, backward};
  return op;
}

void add_iteration_overhead(RankProgram& r, const JobSpec& job) {
  if (job.framework.iteration_overhead <= 0) return;
  ComputeOp host{0, 0, job.model.dtype};
  host.host = job.framework.iteration_overhead;
  r.ops.push_back(new_op(r, "framework overhead", Stream::Compute, Phase::Framework, {}, host));
}

PassOps add_forward_backward(RankProgram& r, const JobSpec& job) {
  add_iteration_overhead(r, job);
  if (job.model.is_transformer) return add_transformer_pass(r, job);
  const Workload& w = job.workload;
  const double batch = job.model.batch_per_worker;
  const int layers = static_cast<int>(w.layers.size());
  PassOps ids;
  ids.backward.assign(layers, -1);
  int prev = -1;
  // One op after the previous one on the compute stream.
  auto chain = [&](std::string label, Phase phase, int l, ComputeOp body) {
    Op op;
    op.id = static_cast<int>(r.ops.size());
    op.label = std::move(label);
    op.phase = phase;
    op.layer = l;
    if (prev >= 0) op.deps.push_back(prev);
    op.body = body;
    prev = op.id;
    r.ops.push_back(std::move(op));
  };
  for (const bool backward : {false, true}) {
    const Phase phase = backward ? Phase::Backward : Phase::Forward;
    const char* pass = backward ? "bwd" : "fwd";
    for (int i = 0; i < layers; ++i) {
      const int l = backward ? layers - 1 - i : i;
      const Layer& layer = w.layers[l];
      if (casts_weights(job, layer)) {
        chain(fmt::format("{} {} weight cast", pass, layer.name), phase, l, weight_cast_op(layer, job.model.dtype));
      }
      if (transposes(job, layer)) {
        chain(fmt::format("{} {} nchw transposes", pass, layer.name), phase, l,
              transpose_op(layer, batch, job.model.dtype, backward));
      }
      chain(fmt::format("{} {}", pass, layer.name), phase, l, layer_op(layer, batch, job.model.dtype, backward));
      if (backward) ids.backward[l] = prev;
    }
  }
  ids.last = prev;
  return ids;
}

}  // namespace dtsim
