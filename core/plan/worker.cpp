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

double optimizer_state_copies(Optimizer o) {
  switch (o) {
    case Optimizer::Sgd: return 0;
    case Optimizer::Momentum: return 1;
    case Optimizer::Adam: return 2;
  }
  return 0;
}

UpdateOp make_update(double params, Optimizer o) {
  // FLOPs per parameter: SGD w -= lr*g (2); momentum adds v = m*v + g (2 more); Adam about 12.
  const double flops_per_param = o == Optimizer::Sgd ? 2 : (o == Optimizer::Momentum ? 4 : 12);
  const double states = optimizer_state_copies(o);
  // fp32 master weights: read w and g, write w, read and write each state.
  const double mem = params * 4.0 * (3 + 2 * states);
  return UpdateOp{params, params * flops_per_param, mem, Dtype::Fp32};
}

ComputeOp layer_op(const Layer& layer, double batch, Dtype dtype, bool backward) {
  // Weights are read forward, read and their gradient written backward; activations as the table says.
  const double traffic = backward ? (layer.bwd_traffic >= 0 ? layer.bwd_traffic : 3 * layer.activations)
                                  : (layer.fwd_traffic >= 0 ? layer.fwd_traffic : 2 * layer.activations);
  ComputeOp op{backward ? layer.bwd_flops * batch : layer.fwd_flops * batch,
               ((backward ? 2 : 1) * layer.params + traffic * batch) * dtype_bytes(dtype), dtype};
  op.cls = layer.cls;
  op.gemm = GemmShape{layer.gemm_m * batch, layer.gemm_n, layer.gemm_k, 1, backward};
  return op;
}

PassOps add_forward_backward(RankProgram& r, const JobSpec& job) {
  if (job.model.is_transformer) return add_transformer_pass(r, job);
  const Workload& w = job.workload;
  const double batch = job.model.batch_per_worker;
  const int layers = static_cast<int>(w.layers.size());
  PassOps ids;
  ids.backward.assign(layers, -1);
  int prev = -1;
  for (int l = 0; l < layers; ++l) {
    const Layer& layer = w.layers[l];
    Op op;
    op.id = static_cast<int>(r.ops.size());
    op.label = fmt::format("fwd {}", layer.name);
    op.phase = Phase::Forward;
    op.layer = l;
    if (prev >= 0) op.deps.push_back(prev);
    op.body = layer_op(layer, batch, job.model.dtype, false);
    prev = op.id;
    r.ops.push_back(std::move(op));
  }
  for (int l = layers - 1; l >= 0; --l) {
    const Layer& layer = w.layers[l];
    Op op;
    op.id = static_cast<int>(r.ops.size());
    op.label = fmt::format("bwd {}", layer.name);
    op.phase = Phase::Backward;
    op.layer = l;
    if (prev >= 0) op.deps.push_back(prev);
    op.body = layer_op(layer, batch, job.model.dtype, true);
    prev = op.id;
    ids.backward[l] = op.id;
    r.ops.push_back(std::move(op));
  }
  ids.last = prev;
  return ids;
}

}  // namespace dtsim
