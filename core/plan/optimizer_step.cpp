// The optimizer step's traffic and kernel launches (closed forms in optimizer_step.hpp).
#include "core/plan/optimizer_step.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dtsim {

namespace {

// One elementwise kernel of a step: fp32 elements it reads plus writes per parameter, and the tensor lists it
// touches (its multi-tensor depth).
struct StepKernel {
  double accesses;
  int depth;
};

struct OptimizerCost {
  double states;
  double flops;                   // per parameter, the same whichever kernels run it
  std::vector<StepKernel> fused;  // apex's multi-tensor kernels
  std::vector<StepKernel> eager;  // torch.optim's ops, one after the other (empty: none)
};

const OptimizerCost& cost_of(Optimizer o) {
  static const OptimizerCost sgd{0, 2, {{3, 2}}, {{3, 3}, {3, 2}}};
  static const OptimizerCost momentum{1, 4, {{5, 3}}, {{3, 3}, {2, 1}, {3, 2}, {3, 2}}};
  static const OptimizerCost adam{
      2, 12, {{7, 4}}, {{3, 3}, {2, 1}, {3, 2}, {2, 1}, {3, 3}, {2, 2}, {2, 2}, {2, 1}, {4, 3}}};
  // Gradient norm, stage 1 (Adam's moments and the update), the norms of the weights and of the update, stage 2.
  static const OptimizerCost lamb{2, 16, {{1, 1}, {7, 4}, {1, 1}, {1, 1}, {2, 2}}, {}};
  switch (o) {
    case Optimizer::Sgd: return sgd;
    case Optimizer::Momentum: return momentum;
    case Optimizer::Adam: return adam;
    case Optimizer::Lamb: return lamb;
  }
  return sgd;
}

// Kernels one multi-tensor op over `tensors` tensors of `params` parameters launches (MultiTensorApply.cuh).
double multi_tensor_launches(int depth, double params, double tensors) {
  static constexpr double kMaxTensors[5] = {110, 64, 48, 36, 30};
  static constexpr double kElementsPerLaunch = 320.0 * 65536.0;
  const double by_tensors = std::ceil(tensors / kMaxTensors[std::clamp(depth, 1, 5) - 1]);
  return std::max({1.0, by_tensors, std::ceil(params / kElementsPerLaunch)});
}

double rows_tensors(const Workload& w) {
  double n = 0;
  for (const Layer& l : w.layers) {
    if (l.params <= 0) continue;
    n += (l.cls == KernelClass::Norm || l.cls == KernelClass::Gemm) ? 2 : 1;
  }
  return n;
}

double transformer_tensors(const TransformerSpec& t) {
  const double norm = t.rms_norm ? 1 : 2;
  const double bias = t.bias ? 2 : 1;  // a GEMM's weight, and its bias
  const double mlp_gemms = t.gated_mlp ? 3 : 2;
  const double mlp = t.experts > 0 ? t.experts * mlp_gemms * bias + 1 : mlp_gemms * bias;  // + the router
  const double block = 2 * bias + norm + mlp + norm;  // QKV and the projection, two norms, the MLP
  double embed = 1 + (t.rotary ? 0 : 1);              // tokens, learned positions
  if (t.encoder) embed += 1 + norm;                   // token types and the embedding norm
  const double tail = t.encoder ? bias : norm;        // the pooler, or the final norm
  const double head = t.lm_head && !t.tied_embeddings ? 1 : 0;
  return t.layers * block + embed + tail + head;
}

}  // namespace

double optimizer_state_copies(Optimizer o) { return cost_of(o).states; }

UpdateOp make_update(double params, Optimizer o, OptimizerKernels kernels, double tensors) {
  const OptimizerCost& c = cost_of(o);
  const bool fused = kernels == OptimizerKernels::Fused || c.eager.empty();
  const std::vector<StepKernel>& ops = fused ? c.fused : c.eager;
  double accesses = 0;
  double launches = 0;
  for (const StepKernel& k : ops) {
    accesses += k.accesses;
    launches += kernels == OptimizerKernels::PerTensor && !fused ? std::max(1.0, std::ceil(tensors))
                                                                 : multi_tensor_launches(k.depth, params, tensors);
  }
  UpdateOp u{params, params * c.flops, params * 4.0 * accesses, Dtype::Fp32};
  u.launches = launches;
  return u;
}

double parameter_tensors(const JobSpec& job) {
  return job.model.is_transformer ? transformer_tensors(job.model.transformer) : rows_tensors(job.workload);
}

UpdateOp make_update(const JobSpec& job, double params) {
  const double total = job.workload.total_params();
  const double share = total > 0 ? std::min(1.0, params / total) : 1.0;
  return make_update(params, job.model.optimizer, job.framework.optimizer_kernels, parameter_tensors(job) * share);
}

}  // namespace dtsim
