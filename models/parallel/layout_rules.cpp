// The layout rules, in the order the loader reports them.
#include "models/parallel/layout_rules.hpp"

#include <fmt/format.h>

#include "models/parallel/schedule.hpp"

namespace dtsim {

std::optional<LayoutProblem> layout_problem(const TransformerSpec& m, const HybridSpec& h, int devices) {
  const int model_parallel = h.tensor * h.context * h.pipeline;
  if (h.data > 0 && model_parallel * h.data != devices) {
    return LayoutProblem{
        "strategy.data",
        fmt::format("tensor {} x context {} x pipeline {} x data {} = {} ranks, but the job has {} devices (valid: "
                    "data {}, or 0 to derive it)",
                    h.tensor, h.context, h.pipeline, h.data, model_parallel * h.data, devices,
                    devices % model_parallel == 0 ? fmt::format("{}", devices / model_parallel) : "none")};
  }
  if (devices % model_parallel != 0) {
    return LayoutProblem{"strategy.tensor",
                         fmt::format("tensor {} x context {} x pipeline {} = {} does not divide the job's {} devices",
                                     h.tensor, h.context, h.pipeline, model_parallel, devices)};
  }
  const HybridSpec r = resolve_layout(h, devices);
  if (m.heads % h.tensor != 0) {
    return LayoutProblem{"strategy.tensor",
                         fmt::format("{} does not divide the model's {} attention heads", h.tensor, m.heads)};
  }
  const int kv = m.kv_heads > 0 ? m.kv_heads : m.heads;
  if (kv % h.tensor != 0) {
    return LayoutProblem{"strategy.tensor",
                         fmt::format("{} does not divide the model's {} key/value heads", h.tensor, kv)};
  }
  const int ffn = m.ffn > 0 ? m.ffn : 4 * m.hidden;
  if (ffn % h.tensor != 0) {
    return LayoutProblem{"strategy.tensor", fmt::format("{} does not divide the model's ffn width {}", h.tensor, ffn)};
  }
  const int chunks = h.schedule == PipelineSchedule::Interleaved ? h.virtual_stages : 1;
  if (h.virtual_stages > 1 && h.schedule != PipelineSchedule::Interleaved) {
    return LayoutProblem{"strategy.pipeline.virtual_stages",
                         fmt::format("{} model chunks per rank need strategy.pipeline.schedule: interleaved (got {})",
                                     h.virtual_stages, schedule_name(h.schedule))};
  }
  if (chunks > 1 && h.pipeline < 2) {
    return LayoutProblem{
        "strategy.pipeline.virtual_stages",
        fmt::format("{} model chunks per rank interleave over pipeline stages, and there is 1 (valid: 1, or "
                    "strategy.pipeline.stages of at least 2)",
                    chunks)};
  }
  if (m.layers % (h.pipeline * chunks) != 0) {
    return LayoutProblem{
        "strategy.pipeline.stages",
        fmt::format("the model's {} layers do not split evenly over {} stages{} (valid: a divisor of {})", m.layers,
                    h.pipeline * chunks,
                    chunks > 1 ? fmt::format(" ({} ranks x {} virtual stages)", h.pipeline, chunks) : "", m.layers)};
  }
  if (m.seq_len % h.context != 0) {
    return LayoutProblem{"strategy.context",
                         fmt::format("{} does not divide the sequence length {}", h.context, m.seq_len)};
  }
  if (h.context > 1 && has_window(m)) {
    return LayoutProblem{"strategy.context",
                         fmt::format("context parallelism over {} ranks with a sliding window of {} tokens "
                                     "(model.transformer.window) is not modelled: how the ranks share a window's keys "
                                     "depends on the implementation (valid: 1, or a window of 0 or of at least the "
                                     "sequence's {})",
                                     h.context, m.window, m.seq_len)};
  }
  if (h.expert > 1 && m.experts == 0) {
    return LayoutProblem{"strategy.expert", "expert parallelism needs an MoE model (model.transformer.experts > 0)"};
  }
  if (m.experts > 0 && m.experts % h.expert != 0) {
    return LayoutProblem{"strategy.expert",
                         fmt::format("{} does not divide the model's {} experts", h.expert, m.experts)};
  }
  if (r.data % h.expert != 0) {
    return LayoutProblem{
        "strategy.expert",
        fmt::format("{} does not divide the data-parallel size {} (experts are spread over data-parallel ranks)",
                    h.expert, r.data)};
  }
  if (m.experts > 0 && h.tensor > 1 && !h.sequence_parallel) {
    return LayoutProblem{
        "strategy.sequence_parallel",
        "an MoE model with tensor parallelism routes each rank's sequence-parallel tokens (set it to true, as "
        "Megatron-LM requires)"};
  }
  if (h.recompute_every > 1 && h.recompute == Recompute::None) {
    return LayoutProblem{"strategy.recompute_every",
                         fmt::format("{} picks which blocks recompute, and strategy.recompute is none (valid: 1, "
                                     "or strategy.recompute selective, full or selective_op)",
                                     h.recompute_every)};
  }
  if (h.recompute == Recompute::SelectiveOp && m.experts > 0) {
    return LayoutProblem{"strategy.recompute",
                         "selective_op counts a dense block's matmuls (torchtitan's policy) and the model has experts "
                         "(valid: none, selective, full)"};
  }
  const int per_step = h.micro_batch * r.data;
  if (h.global_batch > 0 && h.global_batch % per_step != 0) {
    return LayoutProblem{
        "strategy.global_batch",
        fmt::format("{} sequences do not split into micro-batches of {} over {} data-parallel ranks (valid: a "
                    "multiple of {})",
                    h.global_batch, h.micro_batch, r.data, per_step)};
  }
  const std::string why = find_schedule(h.schedule).refuse(h.pipeline, r.micro_batches(), chunks);
  if (!why.empty()) return LayoutProblem{"strategy.global_batch", why};
  return std::nullopt;
}

}  // namespace dtsim
