// The hybrid layouts a transformer can take on a number of devices: every combination of tensor,
// context, pipeline, data and expert sizes, micro-batch, schedule and model chunks, recompute,
// ZeRO stage and sequence parallelism that keeps the layout rules (layout_rules.hpp), within the
// limits a search is given. Sizes are divisors (of the heads, the sequence, the layers, the
// experts, the batch), so the space is enumerated directly rather than filtered from a product.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/parallel/hybrid.hpp"
#include "models/zoo/transformer.hpp"

namespace dtsim {

struct LayoutLimits {
  bool operator==(const LayoutLimits&) const = default;
  int devices = 1;
  int global_batch = 0;  // sequences per iteration; 0: micro_batch x d (no accumulation)
  // Tokens a step, searched (max_tokens > 0; global_batch is then not read): each layout takes the largest global batch
  // of whole d x micro-batch rounds from min_tokens to max_tokens (as sequences of the model's length), the most
  // micro-batches and so the least bubble its memory allows (`dtsim tune --tokens`, tune.*_tokens_per_step).
  double min_tokens = 0;
  double max_tokens = 0;
  int max_tensor = 8;    // tensor groups stay within a node by default (the node's devices)
  int max_context = 1;   // context parallelism is searched only when asked (long sequences)
  int max_pipeline = 0;  // 0: no limit
  int max_micro_batch = 8;
  int max_virtual_stages = 4;  // interleaved schedule's model chunks per rank
  // Fixed sizes (0: searched): `tune.fixed` and the command line's constraints.
  int tensor = 0, pipeline = 0, context = 0, expert = 0, micro_batch = 0, zero = -1;
  std::vector<PipelineSchedule> schedules = {PipelineSchedule::OneFOneB, PipelineSchedule::GPipe,
                                             PipelineSchedule::Interleaved};
  std::vector<Recompute> recomputes = {Recompute::None, Recompute::Selective, Recompute::Full};
  // Rank orders (strategy.rank_order): `rank_order` for every layout, or with `rank_orders` every order of the
  // layout's dimensions of more than one rank (orders that differ only in where size-1 dimensions go place every
  // rank alike: one of them, size-1 dimensions last in `rank_order`'s order).
  std::string rank_order = "tp-cp-ep-dp-pp";
  bool rank_orders = false;
};

// The rank orders of `h` that place its ranks differently: every order of its dimensions of more than one rank, then
// the rest as `base` orders them; the first places ranks as `base` does.
std::vector<std::string> distinct_rank_orders(const HybridSpec& h, const std::string& base);
// The part of `h.rank_order` that places ranks: its dimensions of more than one rank, e.g. "tp-dp-pp".
std::string spread_rank_order(const HybridSpec& h);

// Calls `visit` once per valid layout (data resolved, global_batch as given); returns how many.
long for_each_layout(const TransformerSpec& m, const LayoutLimits& limits,
                     const std::function<void(const HybridSpec&)>& visit);

// The divisors of n in increasing order (n >= 1).
std::vector<int> divisors(int n);

}  // namespace dtsim
