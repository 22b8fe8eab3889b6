// The hybrid-parallel job keys and their checks (docs/parallelism.md).
#include "core/scenario/hybrid_keys.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/parallel/layout.hpp"
#include "models/parallel/layout_rules.hpp"
#include "models/parallel/schedule.hpp"

namespace dtsim {
namespace {

using J = JobSpec;
using V = ScalarValue;

std::vector<std::pair<std::string, PipelineSchedule>> schedule_choices() {
  std::vector<std::pair<std::string, PipelineSchedule>> choices;
  for (const ScheduleTraits& t : pipeline_schedules()) choices.emplace_back(t.name, t.kind);
  return choices;
}

std::string schedule_names() {
  std::vector<std::string_view> names;
  for (const ScheduleTraits& t : pipeline_schedules()) names.push_back(t.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

[[noreturn]] void fail_at(const Scenario& s, const std::string& key, const std::string& message) {
  throw InputError(s.location_of(key), fmt::format("{}: {}", key, message));
}

// Keys that only a hybrid job reads.
constexpr const char* kHybridOnly[] = {"strategy.tensor",
                                       "strategy.pipeline",
                                       "strategy.pipeline.stages",
                                       "strategy.pipeline.schedule",
                                       "strategy.pipeline.virtual_stages",
                                       "strategy.data",
                                       "strategy.expert",
                                       "strategy.context",
                                       "strategy.sequence_parallel",
                                       "strategy.micro_batch",
                                       "strategy.global_batch",
                                       "strategy.recompute",
                                       "strategy.zero",
                                       "strategy.rank_order"};

}  // namespace

void add_hybrid_keys(KeyTable& keys) {
  keys.job("strategy.tensor", "count", "1",
           "Hybrid: tensor-parallel size t (a layer's matrices split over t ranks; heads and ffn must divide).",
           [](J& j, const V& v) { j.strategy.hybrid.tensor = v.count(1); });
  keys.job("strategy.pipeline", "count", "1",
           "Hybrid: pipeline stages p (the same as strategy.pipeline.stages, and a --set of either replaces the "
           "other; write `pipeline: {stages: 8, schedule: 1f1b}` to set both).",
           [](J& j, const V& v) { j.strategy.hybrid.pipeline = v.count(1); });
  keys.job("strategy.pipeline.stages", "count", "1", "Hybrid: pipeline stages p (the layers must split evenly).",
           [](J& j, const V& v) { j.strategy.hybrid.pipeline = v.count(1); });
  keys.job("strategy.pipeline.schedule", "one of: " + schedule_names(), "1f1b",
           "Hybrid: the order of micro-batches' forward and backward passes on each stage (docs/parallelism.md).",
           [](J& j, const V& v) { j.strategy.hybrid.schedule = v.choice(schedule_choices()); });
  keys.job("strategy.pipeline.virtual_stages", "count", "1",
           "Hybrid, interleaved schedule: model chunks per pipeline rank v (layers split over p x v).",
           [](J& j, const V& v) { j.strategy.hybrid.virtual_stages = v.count(1); });
  keys.job("strategy.data", "count", "0",
           "Hybrid: data-parallel size d; 0 means the devices / (tensor x context x pipeline).",
           [](J& j, const V& v) { j.strategy.hybrid.data = v.count(0); });
  keys.job("strategy.expert", "count", "1",
           "Hybrid: expert-parallel size e (an MoE layer's experts over e ranks, carved out of d; must divide d and "
           "the experts).",
           [](J& j, const V& v) { j.strategy.hybrid.expert = v.count(1); });
  keys.job("strategy.context", "count", "1",
           "Hybrid: context-parallel size c (each sequence split over c ranks; K and V gathered over them).",
           [](J& j, const V& v) { j.strategy.hybrid.context = v.count(1); });
  keys.job("strategy.sequence_parallel", "bool", "false",
           "Hybrid: split layer norms and dropout over the tensor group along the sequence (reduce-scatter and "
           "all-gather instead of all-reduce; Korthikanti et al. 2022).",
           [](J& j, const V& v) { j.strategy.hybrid.sequence_parallel = v.boolean(); });
  keys.job("strategy.micro_batch", "count", "1", "Hybrid: sequences per micro-batch.",
           [](J& j, const V& v) { j.strategy.hybrid.micro_batch = v.count(1); });
  keys.job("strategy.global_batch", "count", "0",
           "Hybrid: sequences per iteration; a multiple of micro_batch x d, the quotient being the micro-batches each "
           "pipeline runs (gradient accumulation). 0 means micro_batch x d.",
           [](J& j, const V& v) { j.strategy.hybrid.global_batch = v.count(0); });
  keys.job("strategy.recompute", "one of: none, selective, full, selective_op", "none",
           "Hybrid: activation recomputation: none, selective (the attention core again before backward, Megatron's), "
           "full (each block's forward again) or selective_op (torchtitan's per-op policy: of the block's matmuls in "
           "the order they run, q k v o w1 w3 w2, every second one again, k, o and w3, with the memory-bound ops; the "
           "other matmuls', attention's and the reduce-scatters' outputs kept; docs/parallelism.md, Recompute).",
           [](J& j, const V& v) {
             std::vector<std::pair<std::string, Recompute>> choices;
             for (Recompute r : kRecomputes) choices.emplace_back(recompute_name(r), r);
             j.strategy.hybrid.recompute = v.choice(choices);
           });
  keys.job("strategy.recompute_every", "count", "1",
           "Hybrid: only every n-th block of a rank recomputes as strategy.recompute says, the others keep their "
           "activations (torchtitan's activation_checkpoint.selective_ac_option n with full checkpointing of those "
           "blocks: strategy.recompute full).",
           [](J& j, const V& v) { j.strategy.hybrid.recompute_every = v.count(1); });
  keys.job("strategy.zero", "count", "0",
           "Hybrid: ZeRO stage over the data-parallel group: 0 none, 1 optimizer state sharded, 2 and gradients, 3 and "
           "parameters (FSDP, gathered a block ahead).",
           [](J& j, const V& v) {
             const int stage = v.count(0);
             if (stage > 3) v.fail(fmt::format("ZeRO stage {} does not exist (valid: 0, 1, 2, 3)", stage));
             j.strategy.hybrid.zero = stage;
           });
  keys.job("strategy.rank_order", "dimensions joined by '-'", "tp-cp-ep-dp-pp",
           "Hybrid: which ranks form each group, fastest-varying dimension first (Megatron-LM's default "
           "tp-cp-ep-dp-pp keeps a tensor group on one node).",
           [](J& j, const V& v) {
             try {
               parse_rank_order(v.text());
             } catch (const InputError& e) {
               v.fail(e.message());
             }
             j.strategy.hybrid.rank_order = v.text();
           });
}

void check_hybrid(const Scenario& s, size_t index) {
  const JobSpec& job = s.jobs[index];
  const auto key = [&](const char* k) { return s.job_key(index, k); };
  if (job.strategy.kind != StrategyKind::Hybrid) {
    for (const char* k : kHybridOnly) {
      if (s.where.count(key(k))) fail_at(s, key(k), "is read by hybrid jobs only (set strategy.kind: hybrid)");
    }
    return;
  }
  const HybridSpec& h = job.strategy.hybrid;
  const TransformerSpec& m = job.model.transformer;
  const std::string pipeline_key =
      s.where.count(key("strategy.pipeline")) ? key("strategy.pipeline") : key("strategy.pipeline.stages");
  if (!job.model.is_transformer) {
    fail_at(s, key("model.name"),
            fmt::format("'{}': a hybrid job splits a transformer given by its shape (model.name: transformer with "
                        "model.transformer.*, or a shape-defined zoo model such as llama3_70b: dtsim models list)",
                        job.model.name.empty() ? job.model.file : job.model.name));
  }
  if (m.encoder) fail_at(s, key("model.transformer.encoder"), "hybrid plans model decoders (GPT-style) only");
  if (job.strategy.workers > 0) {
    fail_at(s, key("strategy.workers"), "a hybrid job uses every device of its placement (set strategy.data instead)");
  }
  if (const auto problem = layout_problem(m, h, job.devices(s.cluster))) {
    fail_at(s, problem->key == "strategy.pipeline.stages" ? pipeline_key : key(problem->key.c_str()), problem->message);
  }
  if (job.sync.kind != SyncKind::Bsp) {
    fail_at(s, key("sync.policy"), "hybrid jobs are synchronous (use sync.policy: bsp)");
  }
  if (job.compression.method != CompressionMethod::None) {
    fail_at(s, key("compression.method"), "hybrid jobs exchange uncompressed gradients (use compression.method: none)");
  }
  if (job.strategy.dynamic_batch) {
    fail_at(s, key("strategy.dynamic_batch"), "hybrid jobs split the batch into equal micro-batches");
  }
}

}  // namespace dtsim
