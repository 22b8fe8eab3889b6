// The `tune.*` job keys (docs/parallelism.md, "Searching the layouts"): sizes held fixed and bounds of the search.
// Only `dtsim tune` reads them; its command-line options (--fix, --max-*) override them.
#include "core/scenario/tune_keys.hpp"

#include "models/parallel/fixed_sizes.hpp"

#include <fmt/format.h>

namespace dtsim {
namespace {

using J = JobSpec;
using V = ScalarValue;

}  // namespace

void add_tune_keys(KeyTable& keys) {
  constexpr int kMost = 1 << 20;
  // The sizes a search may hold fixed: 0 searches them (ZeRO's stage, whose 0 is a stage: unset).
  for (const FixedSize& f : kFixedSizes) {
    const bool stage = f.least == 0;
    keys.job(fmt::format("tune.fixed.{}", f.name), "count", stage ? "" : "0",
             fmt::format("dtsim tune: the {} every layout keeps{}; {}: searched.", f.what,
                         stage ? fmt::format(" ({} to {})", f.least, f.most) : "", stage ? "unset" : "0"),
             [f](J& j, const V& v) { j.tune.limits.*f.field = v.count(0, f.most); });
  }
  keys.job(
      "tune.max_tensor", "count", "8",
      "dtsim tune: the largest tensor-parallel size searched (8: a node of 8 devices, where tensor groups belong).",
      [](J& j, const V& v) { j.tune.limits.max_tensor = v.count(1, kMost); });
  keys.job("tune.max_pipeline", "count", "0", "dtsim tune: the most pipeline stages searched; 0: any.",
           [](J& j, const V& v) { j.tune.limits.max_pipeline = v.count(0, kMost); });
  keys.job("tune.max_context", "count", "1",
           "dtsim tune: the largest context-parallel size searched (1: none; long sequences want more).",
           [](J& j, const V& v) { j.tune.limits.max_context = v.count(1, kMost); });
  keys.job("tune.max_micro_batch", "count", "8", "dtsim tune: the largest micro-batch searched.",
           [](J& j, const V& v) { j.tune.limits.max_micro_batch = v.count(1, kMost); });
  keys.job("tune.max_virtual_stages", "count", "4",
           "dtsim tune: the most model chunks per pipeline rank searched (interleaved schedule).",
           [](J& j, const V& v) { j.tune.limits.max_virtual_stages = v.count(1, 1024); });
  keys.job("tune.rank_orders", "bool", "true",
           "dtsim tune: search every rank order of each layout's dimensions of more than one rank "
           "(strategy.rank_order: which ranks share a node); false: the scenario's order only.",
           [](J& j, const V& v) { j.tune.limits.rank_orders = v.boolean(); });
  keys.job("tune.min_tokens_per_step", "number", "0",
           "dtsim tune, with tune.max_tokens_per_step: the fewest tokens a step may take (a global batch of at least "
           "this / model.transformer.seq_len sequences).",
           [](J& j, const V& v) { j.tune.limits.min_tokens = v.between(0, 1e15); });
  keys.job("tune.max_tokens_per_step", "number", "0",
           "dtsim tune: search the global batch too, each layout taking the most whole d x micro-batch rounds of "
           "sequences in [tune.min_tokens_per_step, this] tokens, ranked by time a sample (the most tokens/s); 0: the "
           "job's strategy.global_batch.",
           [](J& j, const V& v) { j.tune.limits.max_tokens = v.between(0, 1e15); });
  keys.job("tune.max_memory_fraction", "number", "1",
           "dtsim tune: the fraction of a device's memory a rank may need (0.01 to 1), as the memory model counts it.",
           [](J& j, const V& v) { j.tune.max_memory_fraction = v.between(0.01, 1.0); });
}

}  // namespace dtsim
