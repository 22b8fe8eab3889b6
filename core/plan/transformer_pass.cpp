// A transformer's rows as their kernels in data-parallel plans (the rules are in transformer_pass.hpp).
#include "core/plan/transformer_pass.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "models/parallel/transformer_ops.hpp"

namespace dtsim {
namespace {

using Steps = std::vector<KernelStep>;

// The kernels of each row, forward and backward, in the order they run.
struct RowKernels {
  std::vector<Steps> forward;
  std::vector<Steps> backward;
};

// Splits a block's kernels where its MLP (or MoE) part starts: forward at its norm, backward after it.
std::pair<Steps, Steps> split_at(const Steps& steps, const std::string& name, bool after) {
  auto it = std::find_if(steps.begin(), steps.end(), [&](const KernelStep& k) { return k.name == name; });
  if (it == steps.end()) throw RuntimeError(fmt::format("transformer block without a '{}' kernel", name));
  if (after) ++it;
  return {Steps(steps.begin(), it), Steps(it, steps.end())};
}

// The pooler (BERT): one d x d GEMM on each sequence's first token, then tanh.
KernelStep pooler(const JobSpec& job, const Layer& row, double batch, bool backward) {
  KernelStep k;
  k.name = "pooler";
  k.cls = KernelClass::Gemm;
  const double d = job.model.transformer.hidden;
  k.flops = (backward ? row.bwd_flops : row.fwd_flops) * batch;
  k.mem_bytes = (backward ? 2 : 1) * (d * d + 2 * batch * d) * dtype_bytes(job.model.dtype);
  k.gemm = GemmShape{batch, d, d, 1, backward};
  return k;
}

RowKernels row_kernels(const JobSpec& job) {
  const TransformerSpec& m = job.model.transformer;
  ShardShape sh;
  sh.micro_batch = static_cast<int>(job.model.batch_per_worker);
  sh.dtype_bytes = dtype_bytes(job.model.dtype);
  sh.autocast = job.framework.mixed_precision == MixedPrecision::Autocast;  // one micro-batch: nothing summed
  sh.eager_attention = job.framework.attention_kernels == AttentionKernels::Eager;
  sh.fp8 = job.model.fp8;
  sh.pointwise = job.framework.pointwise_kernels;
  sh.norm_kernel = job.framework.norm_kernel;
  const double batch = job.model.batch_per_worker;
  const std::vector<Layer>& rows = job.workload.layers;
  RowKernels out;
  const auto [attn_fwd, mlp_fwd] = split_at(block_forward(m, sh), "ln2", false);
  const auto [mlp_bwd, attn_bwd] = split_at(block_backward(m, sh), "ln2 bwd", true);
  const auto [final_norm, head] = split_at(head_forward(m, sh), "final norm", true);
  const auto [head_bwd, final_norm_bwd] = split_at(head_backward(m, sh), "final norm bwd", false);
  for (const Layer& row : rows) {
    const std::string& n = row.name;
    if (n == "embed") {
      out.forward.push_back(embedding_forward(m, sh));
      out.backward.push_back(embedding_backward(m, sh));
    } else if (n.starts_with("attn_")) {
      out.forward.push_back(attn_fwd);
      out.backward.push_back(attn_bwd);
    } else if (n.starts_with("mlp_") || n.starts_with("moe_")) {
      out.forward.push_back(mlp_fwd);
      out.backward.push_back(mlp_bwd);
    } else if (n == "pooler") {
      out.forward.push_back({pooler(job, row, batch, false)});
      out.backward.push_back({pooler(job, row, batch, true)});
    } else if (n == "ln_f") {
      out.forward.push_back(final_norm);
      out.backward.push_back(final_norm_bwd);
    } else if (n == "lm_head") {
      out.forward.push_back(head);
      out.backward.push_back(head_bwd);
    } else {
      throw RuntimeError(fmt::format("transformer row '{}' has no kernels", n));
    }
  }
  return out;
}

// Appends one row's kernels after `prev`; returns the last op's id.
int append_row(RankProgram& r, const JobSpec& job, int layer, const Steps& steps, Phase phase, int prev) {
  const std::string& row = job.workload.layers[static_cast<size_t>(layer)].name;
  for (const KernelStep& k : steps) {
    if (k.collective) throw RuntimeError(fmt::format("data-parallel transformer row '{}' has a collective", row));
    const ComputeOp c = kernel_op(k, job.model.dtype);
    Op op = new_op(r, fmt::format("{} {} {}", phase == Phase::Forward ? "fwd" : "bwd", row, k.name), Stream::Compute,
                   phase, prev >= 0 ? std::vector<int>{prev} : std::vector<int>{}, c);
    op.layer = layer;
    prev = op.id;
    r.ops.push_back(std::move(op));
  }
  return prev;
}

}  // namespace

ComputeOp kernel_op(const KernelStep& k, Dtype model_dtype) {
  ComputeOp c{k.flops, k.mem_bytes, k.dtype.value_or(model_dtype)};
  c.cls = k.cls;
  c.gemm = k.gemm;
  c.reread = k.reread;
  return c;
}

PassOps add_transformer_pass(RankProgram& r, const JobSpec& job) {
  const RowKernels kernels = row_kernels(job);
  const int layers = static_cast<int>(job.workload.layers.size());
  PassOps ids;
  ids.backward.assign(static_cast<size_t>(layers), -1);
  int prev = -1;
  for (int l = 0; l < layers; ++l)
    prev = append_row(r, job, l, kernels.forward[static_cast<size_t>(l)], Phase::Forward, prev);
  for (int l = layers - 1; l >= 0; --l) {
    prev = append_row(r, job, l, kernels.backward[static_cast<size_t>(l)], Phase::Backward, prev);
    ids.backward[static_cast<size_t>(l)] = prev;
  }
  ids.last = prev;
  return ids;
}

}  // namespace dtsim
