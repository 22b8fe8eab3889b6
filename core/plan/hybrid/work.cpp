// The output layer's parameters and the optimizer step with mixed precision's copies (work.hpp).
#include "core/plan/hybrid/work.hpp"

#include "core/plan/worker.hpp"

namespace dtsim {

double output_params(const TransformerSpec& m, const ShardShape& sh, int global_stages) {
  const bool shared = global_stages == 1 && m.tied_embeddings && m.lm_head;
  return head_params(m, sh) - (shared ? m.vocab * static_cast<double>(m.hidden) / sh.tensor : 0);
}

OptimizerWork optimizer_work(const JobSpec& job, double owned, double local) {
  const double grad_bytes = dtype_bytes(job.model.grad_dtype);
  OptimizerWork w{ComputeOp{3 * owned, 3 * owned * grad_bytes, Dtype::Fp32}, make_update(job, owned)};
  w.norm.cls = KernelClass::Elementwise;
  // The step itself, then (mixed precision) the fp32 master weights copied to the 16-bit ones and the whole local
  // gradient buffer zeroed for the next iteration. Autocast steps the fp32 parameters themselves and sets .grad to
  // None (PyTorch's zero_grad default since 2.0): neither.
  const double weight_bytes = dtype_bytes(job.model.dtype);
  const bool autocast = job.framework.mixed_precision == MixedPrecision::Autocast;
  if (weight_bytes < 4 && !autocast) w.step.mem_bytes += owned * (4 + weight_bytes) + local * grad_bytes;
  return w;
}

}  // namespace dtsim
