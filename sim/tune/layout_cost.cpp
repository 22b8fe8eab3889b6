// A hybrid layout's iteration time in closed form (the rules are at the top of layout_cost.hpp).
#include "sim/tune/layout_cost.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/error.hpp"
#include "core/plan/compiler.hpp"
#include "core/plan/hybrid/compile.hpp"
#include "core/plan/transformer_pass.hpp"
#include "models/cost/cores.hpp"
#include "models/cost/cost_model.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/recompute_ops.hpp"
#include "models/parallel/transformer_ops.hpp"

namespace dtsim::tune {

// The layout's ranks placed and its groups formed, as the plan compiler does: one stage-representative plan of one
// micro-batch (its programs are not used), and the cost model over it.
struct LayoutCoster::Probe {
  Plan plan;
  std::unique_ptr<cost::CostModel> cost;
  std::vector<int> rep;                             // by pipeline stage: its representative's plan rank
  std::vector<std::array<int, kGroupKinds>> group;  // by stage: the representative's plan group of each kind, or -1
  std::vector<int> tied;                            // by stage: its tied embeddings' group (first and last), or -1
  std::vector<double> kept;                         // by stage: compute's rate beside communication
};

// One micro-batch's work on each pipeline stage's representative (seconds), for one (t, c, e, p) shape, micro-batch,
// sequence parallelism and recompute.
struct LayoutCoster::StepTimes {
  struct Stage {
    double block_fwd = 0, block_bwd = 0;  // a block's forward; its recompute and backward
    double block_tensor = 0;              // the tensor- and context-parallel collectives in both
    double block_compute = 0;             // the kernels in both
    double embedding_fwd = 0, embedding_bwd = 0, head_fwd = 0, head_bwd = 0;
    double receive_gather = 0;  // a received message's all-gather over the tensor group (t > 1, no SP)
    double message = 0;         // P: one message to the next stage
  };
  std::vector<Stage> stage;
};

namespace {

// A collective of `kind` and `bytes` over plan group g (0 when there is none).
double collective_s(const cost::CostModel& cost, const Plan& plan, const CollectiveAlgorithm& preferred, int g,
                    CollectiveKind kind, double bytes) {
  if (g < 0 || bytes <= 0) return 0;
  const CommGroup& group = plan.groups[static_cast<size_t>(g)];
  const GroupShape shape{static_cast<int>(group.ranks.size()), group.per_node, 0};
  const CollectiveOp op{kind, bytes, g, &hybrid_algorithm(preferred, kind, shape), 0};
  return cost.collective_host_time(op) + cost.collective_time(op);
}

struct Timed {
  double total = 0;
  double collectives = 0;
};

Timed time_steps(const cost::CostModel& cost, const Plan& plan, const RankProgram& rank,
                 const std::array<int, kGroupKinds>& groups, const CollectiveAlgorithm& preferred, Dtype dtype,
                 const std::vector<KernelStep>& steps) {
  Timed t;
  for (const KernelStep& k : steps) {
    if (k.collective) {
      const double s = collective_s(cost, plan, preferred, groups[static_cast<size_t>(k.group)], k.kind, k.bytes);
      t.total += s;
      t.collectives += s;
    } else {
      t.total += cost.compute_time(rank, kernel_op(k, dtype));
    }
  }
  return t;
}

}  // namespace

LayoutCoster::LayoutCoster(const Scenario& s, size_t job) : scenario_(s), job_(job) {
  if (job >= s.jobs.size() || s.jobs[job].strategy.kind != StrategyKind::Hybrid || !s.jobs[job].model.is_transformer) {
    throw InputError("tune: the scenario's job must be a hybrid job of a transformer (strategy.kind: hybrid)");
  }
  algorithm_ = &find_algorithm(s.jobs[job].strategy.algorithm);
}

LayoutCoster::~LayoutCoster() = default;

const LayoutCoster::Probe& LayoutCoster::probe(const HybridSpec& layout) {
  const auto key = std::make_tuple(layout.tensor, layout.context, layout.expert, layout.pipeline, layout.rank_order);
  auto found = probes_.find(key);
  if (found != probes_.end()) return *found->second;
  // A probe holds every rank's placement and groups (O(devices)), and a search meets each (t, c, p) in one run of
  // layouts (models/parallel/layout_space.cpp's loop order): the probes of another (t, c, p) are let go, so a search
  // holds those of one shape at a time, not of every shape (issue #51: 72 shapes of a million devices).
  const auto shape = std::make_tuple(layout.tensor, layout.context, layout.pipeline);
  if (shape != probed_shape_) {
    probes_.clear();
    probed_shape_ = shape;
  }
  // One micro-batch of 1F1B: the same placement and groups as the layout's, the fewest ops.
  Scenario s = scenario_;
  HybridSpec& h = s.jobs[job_].strategy.hybrid;
  h.tensor = layout.tensor;
  h.context = layout.context;
  h.expert = layout.expert;
  h.pipeline = layout.pipeline;
  h.data = layout.data;
  h.rank_order = layout.rank_order;
  h.micro_batch = 1;
  h.global_batch = 0;
  h.schedule = PipelineSchedule::OneFOneB;
  h.virtual_stages = 1;
  h.recompute = Recompute::None;
  h.zero = 0;
  auto p = std::make_unique<Probe>();
  p->plan = compile_plan(s, PlanScope::Representatives, PlanDetail::Blocks);
  p->cost = std::make_unique<cost::CostModel>(scenario_.cluster, p->plan);
  const std::vector<int>& workers = p->plan.jobs[job_].workers;
  const HybridLayout ranks(resolve_layout(h, static_cast<int>(workers.size())));
  p->rep.assign(static_cast<size_t>(layout.pipeline), -1);
  for (int local = 0; local < static_cast<int>(workers.size()); ++local) {
    if (represents_stage(ranks, local)) p->rep[static_cast<size_t>(ranks.stage(local))] = workers[local];
  }
  std::array<int, kGroupKinds> none{};
  none.fill(-1);
  p->group.assign(static_cast<size_t>(layout.pipeline), none);
  for (size_t g = 0; g < p->plan.groups.size(); ++g) {
    const CommGroup& group = p->plan.groups[g];
    for (int r : group.ranks) {
      const auto it = std::find(p->rep.begin(), p->rep.end(), r);
      if (it != p->rep.end())
        p->group[static_cast<size_t>(it - p->rep.begin())][static_cast<size_t>(group.kind)] = static_cast<int>(g);
    }
  }
  p->tied.assign(static_cast<size_t>(layout.pipeline), -1);
  for (size_t g = 0; g < p->plan.groups.size(); ++g) {  // the tied embeddings' groups (kind Pipeline)
    const CommGroup& group = p->plan.groups[g];
    if (group.kind != GroupKind::Pipeline) continue;
    for (size_t stage = 0; stage < p->rep.size(); ++stage) {
      if (std::find(group.ranks.begin(), group.ranks.end(), p->rep[stage]) != group.ranks.end())
        p->tied[stage] = static_cast<int>(g);
    }
  }
  const std::vector<double> kept = cost::compute_kept(scenario_.cluster, p->plan);
  for (int r : p->rep) p->kept.push_back(kept[static_cast<size_t>(r)]);
  return *probes_.emplace(key, std::move(p)).first->second;
}

const LayoutCoster::StepTimes& LayoutCoster::steps(const HybridSpec& layout) {
  const JobSpec& job = scenario_.jobs[job_];
  // Autocast's weight gradients are summed over the micro-batches: its steps depend on their number too.
  const int summed = job.framework.mixed_precision == MixedPrecision::Autocast ? layout.micro_batches() : 0;
  const auto key = std::make_tuple(layout.tensor, layout.context, layout.expert, layout.pipeline, layout.micro_batch,
                                   layout.sequence_parallel, static_cast<int>(layout.recompute), layout.recompute_every,
                                   summed, layout.rank_order);
  auto found = steps_.find(key);
  if (found != steps_.end()) return *found->second;
  const Probe& p = probe(layout);
  const TransformerSpec& m = job.model.transformer;
  const ShardShape sh = job_shard_shape(job, layout);
  const CollectiveAlgorithm& algo = *algorithm_;
  const std::vector<KernelStep> fwd = block_forward(m, sh);
  const std::vector<KernelStep> bwd = block_backward(m, sh);
  const std::vector<KernelStep> recompute = block_recompute(m, sh, layout.recompute);
  const double message_bytes = stage_message_bytes(m, sh);
  auto out = std::make_unique<StepTimes>();
  for (int s = 0; s < layout.pipeline; ++s) {
    const RankProgram& rank = p.plan.ranks[static_cast<size_t>(p.rep[static_cast<size_t>(s)])];
    const auto& groups = p.group[static_cast<size_t>(s)];
    const auto timed = [&](const std::vector<KernelStep>& k) {
      return time_steps(*p.cost, p.plan, rank, groups, algo, job.model.dtype, k);
    };
    StepTimes::Stage st;
    const Timed f = timed(fwd), b = timed(bwd);
    Timed r = timed(recompute);  // on the share of the rank's blocks that recompute
    const double share = layout.recompute_share(m.layers / layout.pipeline);
    r.total *= share;
    r.collectives *= share;
    st.block_fwd = f.total;
    st.block_bwd = b.total + r.total;
    st.block_tensor = f.collectives + b.collectives + r.collectives;
    st.block_compute = st.block_fwd + st.block_bwd - st.block_tensor;
    st.embedding_fwd = timed(embedding_forward(m, sh)).total;
    st.embedding_bwd = timed(embedding_backward(m, sh)).total;
    st.head_fwd = timed(head_forward(m, sh)).total;
    st.head_bwd = timed(head_backward(m, sh)).total;
    if (layout.tensor > 1 && !layout.sequence_parallel) {
      st.receive_gather = collective_s(*p.cost, p.plan, algo, groups[static_cast<size_t>(GroupKind::Tensor)],
                                       CollectiveKind::AllGather, message_bytes * layout.tensor);
    }
    if (s + 1 < layout.pipeline) {
      // The stage's ranks on one node send at once: they share its NICs (or each has its own link inside a node).
      const Placement from = rank.where;
      const Placement to = p.plan.ranks[static_cast<size_t>(p.rep[static_cast<size_t>(s + 1)])].where;
      const cost::TransferPath path = p.cost->path(from, to, message_bytes);
      const double sharing = from.node == to.node ? 1.0 : std::max(1, rank.mirrored);
      st.message = path.alpha + message_bytes * sharing / std::min(path.from_bw, path.to_bw);
    }
    out->stage.push_back(st);
  }
  return *steps_.emplace(key, std::move(out)).first->second;
}

LayoutCost LayoutCoster::cost(const HybridSpec& layout) {
  const Probe& p = probe(layout);
  const StepTimes& st = steps(layout);
  const JobSpec& job = scenario_.jobs[job_];
  const TransformerSpec& m = job.model.transformer;
  const ShardShape sh = job_shard_shape(job, layout);
  const CollectiveAlgorithm& algo = *algorithm_;
  const int pp = layout.pipeline;
  const int v = layout.schedule == PipelineSchedule::Interleaved ? layout.virtual_stages : 1;
  const int stages = pp * v;
  const int blocks = m.layers / stages;  // per chunk
  const int mb = layout.micro_batches();
  const double grad = dtype_bytes(job.model.grad_dtype);
  const BlockParams bp = block_params(m, sh);
  const BlockParams lw = block_linear_weights(m, sh);  // fp8 in ZeRO's gathers under framework.fp8_param_gather
  const double embedding = embedding_params(m, sh);
  const double head = output_params(m, sh, stages);
  const double bucket_bytes = hybrid_bucket_bytes(job, layout);
  const bool zero3 = layout.zero >= 3;
  const auto inv = [](double kept) { return kept > 0 && kept < 1 ? 1 / kept - 1 : 0.0; };

  LayoutCost out;
  std::vector<double> work(static_cast<size_t>(pp)), backward(static_cast<size_t>(pp));
  std::vector<double> reduce(static_cast<size_t>(pp)), last_bucket(static_cast<size_t>(pp));
  std::vector<double> tail(static_cast<size_t>(pp)), gathers(static_cast<size_t>(pp));
  std::vector<double> collectives(static_cast<size_t>(pp));
  double first_gather = 0, message = 0;
  int busiest = 0;
  for (int s = 0; s < pp; ++s) {
    const StepTimes::Stage& t = st.stage[static_cast<size_t>(s)];
    const auto& groups = p.group[static_cast<size_t>(s)];
    const int data = groups[static_cast<size_t>(GroupKind::Data)];
    const int expert_data = groups[static_cast<size_t>(GroupKind::ExpertData)];
    const double kept = p.kept[static_cast<size_t>(s)];
    message = std::max(message, t.message);
    double fwd = 0, bwd = 0, compute = 0, tensor = 0, params = 0;  // compute: the kernels alone
    // The gradient buckets of each chunk, filled in backward order (head, blocks last to first, embedding) and
    // reduced as they fill; the rest after the backward.
    double reduce_s = 0, last_s = 0, gather_s = 0;
    const CollectiveKind reduction = layout.zero >= 1 ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce;
    // A bucket's parameters hold the stage's share of linear-layer weights of their kind (param_gather_bytes).
    // (ZeRO-3's buckets hold the embedding and head alone: it gathers the blocks' parameters itself.)
    const double bucketed = zero3 ? 0 : v * blocks;
    double dense = bucketed * bp.dense;
    for (int c = 0; c < v; ++c) dense += (c * pp + s == 0 ? embedding : 0) + (c * pp + s == stages - 1 ? head : 0);
    const double dense_fp8 = bucketed * lw.dense / std::max(dense, 1.0);
    const double expert_fp8 = bp.expert > 0 ? lw.expert / bp.expert : 0;
    const auto flush = [&](double& open, int g, double fp8) {
      if (open <= 0) return;
      const double r = collective_s(*p.cost, p.plan, algo, g, reduction, open);
      reduce_s += r;
      last_s = r;
      if (layout.zero >= 1)
        gather_s += collective_s(*p.cost, p.plan, algo, g, CollectiveKind::AllGather,
                                 param_gather_bytes(job, open / grad, open / grad * fp8));
      open = 0;
    };
    for (int c = 0; c < v; ++c) {
      const int g = c * pp + s;
      const bool first = g == 0, last = g == stages - 1;
      fwd += blocks * t.block_fwd + (first ? t.embedding_fwd : t.receive_gather) + (last ? t.head_fwd : 0);
      bwd += blocks * t.block_bwd + (last ? t.head_bwd : t.receive_gather) + (first ? t.embedding_bwd : 0);
      compute += blocks * t.block_compute;
      tensor += blocks * t.block_tensor;
      params += blocks * (bp.dense + bp.expert) + (first ? embedding : 0) + (last ? head : 0);
      double dense_open = 0, expert_open = 0;
      const auto add = [&](double& open, double bytes, int group, double fp8) {
        if (group < 0 || bytes <= 0) return;
        open += bytes;
        if (open >= bucket_bytes) flush(open, group, fp8);
      };
      if (last) add(dense_open, head * grad, data, dense_fp8);
      for (int b = 0; b < blocks; ++b) {
        if (!zero3) add(dense_open, bp.dense * grad, data, dense_fp8);
        add(expert_open, bp.expert * grad, expert_data, expert_fp8);
      }
      if (first) add(dense_open, embedding * grad, data, dense_fp8);
      flush(dense_open, data, dense_fp8);
      flush(expert_open, expert_data, expert_fp8);
    }
    double per_micro_batch = fwd + bwd;
    if (zero3 && data >= 0) {
      // ZeRO-3: every block's parameters gathered twice and its gradients reduce-scattered, beside the compute.
      const double gather = collective_s(*p.cost, p.plan, algo, data, CollectiveKind::AllGather,
                                         param_gather_bytes(job, bp.dense, lw.dense));
      const double scatter = collective_s(*p.cost, p.plan, algo, data, CollectiveKind::ReduceScatter, bp.dense * grad);
      const double z = v * blocks * (2 * gather + scatter);
      // Only the kernels slow down beside it (the tensor-parallel collectives keep their pace: cost::composite_kept).
      per_micro_batch = std::max(z, per_micro_batch + std::min(compute, z) * inv(kept));
      first_gather = std::max(first_gather, gather);
    }
    // Tied embeddings: the first and last stages' copies sum their gradients after the backward.
    const double tied = collective_s(*p.cost, p.plan, algo, p.tied[static_cast<size_t>(s)], CollectiveKind::AllReduce,
                                     embedding * grad);
    work[static_cast<size_t>(s)] = per_micro_batch;
    backward[static_cast<size_t>(s)] = bwd;
    reduce[static_cast<size_t>(s)] = reduce_s + tied;
    last_bucket[static_cast<size_t>(s)] = last_s + tied;
    gathers[static_cast<size_t>(s)] = gather_s;
    if (s == 0 || per_micro_batch > work[static_cast<size_t>(busiest)]) busiest = s;
    collectives[static_cast<size_t>(s)] = tensor;
    // The optimizer's tail (core/plan/hybrid/compile.cpp finish_iteration): unscale and norm of the owned shard, its
    // all-reduce over the model group, the step, and ZeRO 1/2's gathers of the stepped shards.
    const RankProgram& rank = p.plan.ranks[static_cast<size_t>(p.rep[static_cast<size_t>(s)])];
    const double shard = layout.zero >= 1 ? static_cast<double>(layout.data) * layout.context : 1.0;
    const OptimizerWork optimizer = optimizer_work(job, params / shard, params);
    tail[static_cast<size_t>(s)] = p.cost->compute_time(rank, optimizer.norm) +
                                   collective_s(*p.cost, p.plan, algo, groups[static_cast<size_t>(GroupKind::Model)],
                                                CollectiveKind::AllReduce, 8) +
                                   p.cost->update_time(rank, optimizer.step) + gather_s;
  }
  double c_max = 0, c_sum = 0, b_sum = 0;
  for (int s = 0; s < pp; ++s) {
    c_max = std::max(c_max, work[static_cast<size_t>(s)]);
    c_sum += work[static_cast<size_t>(s)];
    b_sum += backward[static_cast<size_t>(s)];
  }
  const double c_mean = c_sum / pp, b_mean = b_sum / pp;
  out.pipeline_s = mb * c_max + (pp - 1) * c_mean / v + 2.0 * (pp - 1) * message + first_gather;
  out.bubble_s = out.pipeline_s - mb * c_max;
  // The data-parallel reduction's tail: stage s's last backward ends s (B / v + P) before the first stage's.
  double exposed = 0;
  for (int s = 0; s < pp; ++s) {
    const double window = backward[static_cast<size_t>(s)];
    const double r = reduce[static_cast<size_t>(s)];
    const double contention = std::min(r, window) * inv(p.kept[static_cast<size_t>(s)]);
    const double e =
        std::max(last_bucket[static_cast<size_t>(s)], r - window) + contention - s * (b_mean / v + message);
    exposed = std::max(exposed, e);
  }
  double tail_max = 0, gather_max = 0;
  for (int s = 0; s < pp; ++s) {
    tail_max = std::max(tail_max, tail[static_cast<size_t>(s)]);
    gather_max = std::max(gather_max, gathers[static_cast<size_t>(s)]);
  }
  out.exposed_s[static_cast<size_t>(GroupKind::Tensor)] = mb * collectives[static_cast<size_t>(busiest)];
  out.exposed_s[static_cast<size_t>(GroupKind::Pipeline)] = 2.0 * (pp - 1) * message;
  out.exposed_s[static_cast<size_t>(GroupKind::Data)] = exposed + gather_max + first_gather;
  out.iteration_s = job.framework.iteration_overhead + out.pipeline_s + exposed + tail_max;
  return out;
}

}  // namespace dtsim::tune
