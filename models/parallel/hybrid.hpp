// A hybrid-parallel layout (strategy.kind: hybrid): how a transformer's training is split over
// tensor (t), context (c), expert (e), data (d) and pipeline (p) parallel ranks, with micro-batching,
// activation recompute and ZeRO sharding. Megatron-LM's vocabulary (Shoeybi et al. 2019, Narayanan
// et al. 2021, Korthikanti et al. 2022); ZeRO's stages (Rajbhandari et al. 2020).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace dtsim {

enum class PipelineSchedule { GPipe, OneFOneB, Interleaved };
// What a block runs again before its backward (models/parallel/transformer_ops.hpp, block_recompute): nothing,
// Megatron's selective recompute (the attention core), torchtitan's per-op policy (selective_op: every second matmul
// and the memory-bound ops, keeping the rest) or its whole forward (full).
enum class Recompute { None, Selective, Full, SelectiveOp };
constexpr Recompute kRecomputes[] = {Recompute::None, Recompute::Selective, Recompute::Full, Recompute::SelectiveOp};
// As strategy.recompute writes them.
constexpr std::string_view recompute_name(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
    case Recompute::SelectiveOp: return "selective_op";
  }
  return "?";
}

struct HybridSpec {
  bool operator==(const HybridSpec&) const = default;
  int tensor = 1;                  // t: ranks a layer's matrices are split over (Megatron column/row parallel)
  int pipeline = 1;                // p: stages the layers are split over
  int data = 0;                    // d: model replicas; 0 means devices / (t x c x p)
  int expert = 1;                  // e: ranks the experts of an MoE layer are spread over (divides d x c)
  int context = 1;                 // c: ranks one sequence is split over (context parallel, ring attention)
  bool sequence_parallel = false;  // layer norms and dropout split over t along the sequence (needs t > 1)
  int micro_batch = 1;             // sequences per micro-batch
  int global_batch = 0;            // sequences per iteration; 0 means micro_batch x d (no accumulation)
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  int virtual_stages = 1;  // model chunks per pipeline rank (interleaved schedule)
  Recompute recompute = Recompute::None;
  int recompute_every = 1;  // only every n-th block of a rank recomputes (torchtitan's selective_ac_option n)
  int zero = 0;  // 0: replicated optimizer; 1: optimizer state sharded over d; 2: + gradients; 3: + parameters
  std::string rank_order = "tp-cp-ep-dp-pp";  // fastest-varying first: which ranks form each group

  // Micro-batches per iteration and data-parallel rank (gradient accumulation steps); `data` resolved.
  int micro_batches() const { return global_batch > 0 ? global_batch / (micro_batch * data) : 1; }
  int devices() const { return tensor * context * data * pipeline; }
  // Whether the rank's i-th block (0-based, over its model chunks in order) recomputes: every recompute_every-th one,
  // counted as torchtitan's apply_ac counts the blocks it wraps.
  bool recomputes_block(int i) const { return recompute != Recompute::None && (i + 1) % recompute_every == 0; }
  // The share of a rank's `blocks` that recompute.
  double recompute_share(int blocks) const {
    if (recompute == Recompute::None || blocks <= 0) return 0;
    return static_cast<double>(blocks / recompute_every) / blocks;
  }
};

// The layout with `data` derived from the devices when it is 0 (devices / (t x c x p), rounded down:
// validation refuses a remainder).
inline HybridSpec resolve_layout(HybridSpec layout, int devices) {
  if (layout.data <= 0) layout.data = std::max(1, devices / (layout.tensor * layout.context * layout.pipeline));
  return layout;
}

}  // namespace dtsim
