// Hybrid-parallel plans: groups from the layout, each rank's pipeline schedule expanded into its
// kernels and collectives, pipeline messages between stages, and the data-parallel gradient
// reduction with ZeRO's sharding.
//
// Streams: a block's kernels and its tensor-parallel collectives run in order on the compute
// stream (Megatron issues them on the same CUDA stream, so a collective holds the compute back);
// a pipeline receive is on the compute stream too (the stage waits for its input: the bubble),
// a send is posted (non-blocking, as Megatron's batched isend); the data-parallel reduction and
// ZeRO's gathers run on the comm stream beside the compute. Under TP communication overlap a block's
// sequence-parallel collective and its GEMM are one composite whose parts run side by side
// (models/parallel/transformer_ops.hpp; Composite::beside).
#include "core/plan/hybrid/compile.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "core/plan/hybrid/beside_pairs.hpp"
#include "core/plan/hybrid/gradient_buckets.hpp"
#include "core/plan/hybrid/groups.hpp"
#include "core/plan/transformer_pass.hpp"
#include "core/plan/worker.hpp"
#include "models/parallel/recompute_ops.hpp"
#include "models/parallel/schedule.hpp"
#include "models/parallel/transformer_ops.hpp"

namespace dtsim {
namespace {

// Steps that run one after the other on the compute stream, each list with its phase.
using Runs = std::vector<std::pair<const std::vector<KernelStep>*, Phase>>;

class HybridCompiler {
 public:
  HybridCompiler(const Scenario& s, const JobSpec& job, int job_index, Plan& plan, PlanDetail detail)
      : job_(job),
        detail_(detail),
        model_(job.model.transformer),
        spec_(job_layout(s, job)),
        layout_(spec_),
        shape_(job_shard_shape(job, spec_)),
        plan_(plan),
        workers_(plan.jobs[job_index].workers),
        algorithm_(find_algorithm(job.strategy.algorithm)),
        micro_batches_(spec_.micro_batches()),
        chunks_(spec_.schedule == PipelineSchedule::Interleaved ? spec_.virtual_stages : 1),
        stages_(spec_.pipeline * chunks_),
        blocks_per_stage_(model_.layers / stages_),
        block_forward_(block_forward(model_, shape_)),
        block_backward_(block_backward(model_, shape_)),
        recompute_(block_recompute(model_, shape_, spec_.recompute)),
        embedding_forward_(embedding_forward(model_, shape_)),
        embedding_backward_(embedding_backward(model_, shape_)),
        head_forward_(head_forward(model_, shape_)),
        head_backward_(head_backward(model_, shape_)),
        block_params_(block_params(model_, shape_)),
        linear_weights_(block_linear_weights(model_, shape_)),
        buckets_(hybrid_bucket_bytes(job, spec_), job.strategy.overlap) {
    groups_ = add_hybrid_groups(plan_, layout_, workers_, model_.tied_embeddings && stages_ > 1);
  }

  const HybridLayout& layout() const { return layout_; }

  void compile(int local) {
    RankProgram& r = plan_.ranks[workers_[local]];
    r.stage = layout_.stage(local);
    rank_ = &r;
    local_ = local;
    seq_.clear();
    block_items_.clear();
    pairs_.clear();
    buckets_.reset(chunks_);
    add_iteration_overhead(r, job_);
    const auto order = find_schedule(spec_.schedule).order(r.stage, spec_.pipeline, micro_batches_, chunks_);
    // A chunk's gradients are final in its last micro-batch's backward: the data-parallel buckets
    // start there.
    std::vector<int> backwards_left(chunks_, micro_batches_);
    for (const PipelineStep& step : order) {
      const bool last = step.backward && --backwards_left[step.chunk] == 0;
      if (step.backward) {
        backward(step, last);
      } else {
        forward(step);
      }
    }
    finish_iteration();
  }

 private:
  int global_stage(int chunk) const { return chunk * spec_.pipeline + rank_->stage; }
  int first_block(int chunk) const { return global_stage(chunk) * blocks_per_stage_; }
  bool first_stage(int chunk) const { return global_stage(chunk) == 0; }
  bool last_stage(int chunk) const { return global_stage(chunk) == stages_ - 1; }
  // The job-local rank holding global stage g of this rank's pipeline.
  int stage_peer(int g) const {
    Coords c = layout_.coords(local_);
    c[Dim::Pipeline] = ((g % spec_.pipeline) + spec_.pipeline) % spec_.pipeline;
    return workers_[layout_.rank_of(c)];
  }
  // A message to global stage g of micro-batch mb, forward (activations) or backward (gradients).
  int tag(int mb, int g, bool backward) const { return (mb * stages_ + g) * 2 + (backward ? 1 : 0); }

  int add(Op op) {
    op.id = static_cast<int>(rank_->ops.size());
    rank_->ops.push_back(std::move(op));
    return rank_->ops.back().id;
  }

  // One step as an op on the compute stream (nothing for a collective over a group of one).
  std::optional<Op> step_op(const KernelStep& k, std::string label, Phase phase, int mb) {
    const int g = k.collective ? group_of(k.group) : -1;
    if (k.collective && g < 0) return std::nullopt;  // a group of one: nothing to exchange
    Op op;
    op.label = std::move(label);
    op.micro_batch = mb;
    if (k.collective) {
      op.phase = Phase::Communication;
      op.body = collective_op(k.kind, k.bytes, g);
    } else {
      op.phase = phase;
      op.body = kernel_op(k, job_.model.dtype);
    }
    return op;
  }

  // Appends the steps on the compute stream, the first one it adds waiting for `first_deps` too
  // (give them only with steps that add an op); returns the last op's id (or `last` when none).
  int emit(const std::vector<KernelStep>& steps, const std::string& where, Phase phase, int mb, int last,
           std::vector<int> first_deps = {}) {
    for (size_t i = 0; i < steps.size(); ++i) {
      const KernelStep& k = steps[i];
      std::optional<Op> op;
      if (beside_pair(steps, i)) {
        op = pair_op(steps, i, phase);
        op->label = fmt::format("{} {}+{} mb{}", where, k.name, steps[i + 1].name, mb);
        op->micro_batch = mb;
        ++i;
      } else {
        op = step_op(k, fmt::format("{} {} mb{}", where, k.name, mb), phase, mb);
      }
      if (!op) continue;
      op->deps = std::move(first_deps);
      first_deps.clear();
      last = add(std::move(*op));
    }
    return last;
  }

  // Whether steps i and i + 1 are a collective and the GEMM it runs beside (core/plan/hybrid/beside_pairs.hpp).
  bool beside_pair(const std::vector<KernelStep>& steps, size_t i) const {
    return dtsim::beside_pair(plan_, steps, i, [this](GroupKind kind) { return group_of(kind); });
  }

  // Steps i and i + 1 (beside_pair) as one compute op standing for their composite.
  Op pair_op(const std::vector<KernelStep>& steps, size_t i, Phase phase) {
    return pairs_.op(plan_, rank_->rank, steps, i, phase, job_.model.dtype, [&](const KernelStep& k) {
      Op part = *step_op(k, k.name, phase, -1);
      unnumber(part);
      return part;
    });
  }

  // A composite's part: its collective, numbered as it was made, is not matched (Composite).
  void unnumber(Op& part) {
    if (auto* c = std::get_if<CollectiveOp>(&part.body)) {
      --seq_[c->group];
      c->seq = 0;
    }
  }

  // What a block's work becomes under PlanDetail::Blocks or NodeBlocks, the same for every block
  // and micro-batch of a rank: composites, and the steps that stay ops of their own between them.
  struct BlockItem {
    int composite = -1;  // Plan::composites, or -1: `op`
    std::optional<Op> op;
  };

  // Whether a step stays an op of its own: ZeRO-3's prefetch waits on a block's first kernel, and
  // under NodeBlocks a collective over nodes puts flows on NICs that the engine routes.
  bool stands_alone(const Op& op, bool first) const {
    if (first && spec_.zero >= 3 && group_of(GroupKind::Data) >= 0) return true;
    const auto* c = std::get_if<CollectiveOp>(&op.body);
    if (detail_ != PlanDetail::NodeBlocks || !c) return false;
    const CommGroup& g = plan_.groups[c->group];
    return g.per_node < static_cast<int>(g.ranks.size());
  }

  std::vector<BlockItem> block_items(const Runs& runs, const char* kind) {
    std::vector<BlockItem> items;
    Composite open{rank_->rank, {}, {}};
    const auto close = [&] {
      if (open.parts.empty()) return;
      items.push_back({static_cast<int>(plan_.composites.size()), std::nullopt});
      plan_.composites.push_back(std::move(open));
      open = Composite{rank_->rank, {}, {}};
    };
    bool first = true;
    for (const auto& [steps, phase] : runs) {
      // A collective and the GEMM beside it (beside_pair) go into the composite together, marked side by side.
      bool pair_second = false;
      for (size_t i = 0; i < steps->size(); ++i) {
        const KernelStep& k = (*steps)[i];
        std::optional<Op> op = step_op(k, fmt::format("{} {}", kind, k.name), phase, -1);
        if (!op) continue;
        unnumber(*op);  // numbered when placed
        const bool pair_first = !pair_second && beside_pair(*steps, i) && !stands_alone(*op, first);
        if (!pair_first && !pair_second && stands_alone(*op, first)) {
          close();
          items.push_back({-1, std::move(op)});
        } else {
          op->id = static_cast<int>(open.parts.size());
          if (pair_first) open.beside.push_back(beside_of(*steps, i, op->id));
          open.parts.push_back(std::move(*op));
        }
        pair_second = pair_first;
        first = false;
      }
    }
    close();
    return items;
  }

  // A block's work on the compute stream: `runs` (steps and their phase) one after the other, the
  // first op waiting for `first_deps` too. As kernels, or under PlanDetail::Blocks and NodeBlocks
  // as composites labelled `where` `blocks` (block_items; `blocks` is "L3", or "L0-L11" when runs
  // hold several blocks). Returns (the id of the first op, of the last).
  std::pair<int, int> emit_block(const Runs& runs, const std::string& where, const std::string& kind,
                                 const std::string& blocks, int mb, int last, std::vector<int> first_deps) {
    const int first = static_cast<int>(rank_->ops.size());
    if (detail_ == PlanDetail::Kernels) {
      for (const auto& [steps, phase] : runs) {
        const std::string at = fmt::format("{} {}", phase == Phase::Recompute ? "recompute" : where, blocks);
        last = emit(*steps, at, phase, mb, last, std::move(first_deps));
        first_deps.clear();
      }
      return {first, last};
    }
    auto found = block_items_.find(kind);
    if (found == block_items_.end()) found = block_items_.emplace(kind, block_items(runs, kind.c_str())).first;
    for (const BlockItem& item : found->second) {
      Op op;
      if (item.op) {
        op = *item.op;
        if (auto* c = std::get_if<CollectiveOp>(&op.body)) c->seq = seq_[c->group]++;
        op.label = fmt::format("{} {} {} mb{}", where, blocks, op.label.substr(op.label.find(' ') + 1), mb);
      } else {
        ComputeOp whole{0, 0, job_.model.dtype};
        whole.composite = item.composite;
        for (const Op& part : plan_.composites[item.composite].parts) {
          if (const auto* c = std::get_if<ComputeOp>(&part.body)) {
            whole.flops += c->flops;
            whole.mem_bytes += c->mem_bytes;
          }
        }
        op.label = fmt::format("{} {} mb{}", where, blocks, mb);
        op.phase = plan_.composites[item.composite].parts.back().phase == Phase::Recompute ? Phase::Recompute
                                                                                           : runs.back().second;
        op.body = whole;
      }
      op.micro_batch = mb;
      op.deps = std::move(first_deps);
      first_deps.clear();
      last = add(std::move(op));
    }
    return {first, last};
  }

  // Whether a chunk's blocks run as one composite (Blocks, NodeBlocks; it times as the blocks one by
  // one): a block's `runs` are one composite and ZeRO-3 neither gathers nor reduce-scatters per block.
  bool chunk_as_one(const Runs& runs, const char* kind) {
    if (detail_ == PlanDetail::Kernels || blocks_per_stage_ < 2) return false;
    if (spec_.zero >= 3 && group_of(GroupKind::Data) >= 0) return false;
    auto found = block_items_.find(kind);
    if (found == block_items_.end()) found = block_items_.emplace(kind, block_items(runs, kind)).first;
    return found->second.size() == 1 && found->second.front().composite >= 0;
  }
  std::string chunk_kind(const char* kind) const { return fmt::format("{} x{}", kind, blocks_per_stage_); }
  Runs repeated(const Runs& runs) const {  // a chunk's blocks
    Runs all;
    for (int b = 0; b < blocks_per_stage_; ++b) all.insert(all.end(), runs.begin(), runs.end());
    return all;
  }

  CollectiveOp collective_op(CollectiveKind kind, double bytes, int g) {
    const CommGroup& group = plan_.groups[g];
    const GroupShape shape{static_cast<int>(group.ranks.size()), group.per_node, 0};
    return CollectiveOp{kind, bytes, g, &hybrid_algorithm(algorithm_, kind, shape), seq_[g]++};
  }

  int group_of(GroupKind kind) const { return groups_.index[local_][static_cast<int>(kind)]; }

  void forward(const PipelineStep& step) {
    const int mb = step.micro_batch;
    const int g = global_stage(step.chunk);
    int last =
        first_stage(step.chunk) ? emit(embedding_forward_, "embedding", Phase::Forward, mb, -1) : receive(mb, g, false);
    const int begin = first_block(step.chunk);
    const int end = begin + blocks_per_stage_;
    if (chunk_as_one({{&block_forward_, Phase::Forward}}, "fwd")) {
      const std::string blocks = fmt::format("L{}-L{}", begin, end - 1);
      last = emit_block(repeated({{&block_forward_, Phase::Forward}}), "fwd", chunk_kind("fwd"), blocks, mb, last, {})
                 .second;
    } else {
      for (int b = begin; b < end; ++b) {
        const std::vector<int> gathered = zero3_gather(b, mb, false, -1);
        int first = 0;
        std::tie(first, last) =
            emit_block({{&block_forward_, Phase::Forward}}, "fwd", "fwd", fmt::format("L{}", b), mb, last, gathered);
        if (b + 1 < end) zero3_gather(b + 1, mb, false, first);
      }
    }
    if (last_stage(step.chunk)) emit(head_forward_, "head", Phase::Forward, mb, last);
    if (!last_stage(step.chunk)) send(mb, g + 1, false, last);
  }

  void backward(const PipelineStep& step, bool last_micro_batch) {
    const int mb = step.micro_batch;
    const int g = global_stage(step.chunk);
    int last = -1;
    if (last_stage(step.chunk)) {
      last = emit(head_backward_, "head", Phase::Backward, mb, last);
      end_gradients_ready(output_params(), last, last_micro_batch, step.chunk, "head");
    } else {
      last = receive(mb, g, true);
    }
    const int begin = first_block(step.chunk);
    // Recompute first (flash's selective has nothing to run; recompute_every: each n-th block), then the backward.
    Runs runs, alone{{&block_backward_, Phase::Backward}};
    if (!recompute_.empty()) runs.emplace_back(&recompute_, Phase::Recompute);
    runs.emplace_back(&block_backward_, Phase::Backward);
    const auto recomputes = [&](int b) {
      return recompute_.empty() || spec_.recomputes_block(step.chunk * blocks_per_stage_ + b - begin);
    };
    // The chunk's last micro-batch hands each block's gradients to its bucket as that block ends.
    if (!last_micro_batch && spec_.recompute_every == 1 && chunk_as_one(runs, "bwd")) {
      last = emit_block(repeated(runs), "bwd", chunk_kind("bwd"),
                        fmt::format("L{}-L{}", begin + blocks_per_stage_ - 1, begin), mb, last, {})
                 .second;
    } else {
      for (int b = begin + blocks_per_stage_ - 1; b >= begin; --b) {
        int first = 0;
        std::tie(first, last) = emit_block(recomputes(b) ? runs : alone, "bwd", recomputes(b) ? "bwd" : "bwd alone",
                                           fmt::format("L{}", b), mb, last, zero3_gather(b, mb, true, -1));
        // The next block's gather: with its backward begun (pre), or ended (post, ahead of its reduce-scatter).
        const bool post = job_.framework.backward_prefetch == BackwardPrefetch::Post;
        if (b > begin) zero3_gather(b - 1, mb, true, post ? last : first);
        gradients_ready(b, last, mb, last_micro_batch, step.chunk);
      }
    }
    if (first_stage(step.chunk)) {
      last = emit(embedding_backward_, "embedding", Phase::Backward, mb, last);
      end_gradients_ready(embedding_params(model_, shape_), last, last_micro_batch, step.chunk, "embedding");
    } else {
      send(mb, g - 1, true, last);
    }
    if (last_micro_batch) last_backward_ = std::max(last_backward_, last);
  }

  // Receives the input of global stage g on the compute stream (it waits for it), and with tensor
  // parallelism but no sequence parallelism gathers the 1/t slices over the tensor group.
  int receive(int mb, int g, bool backward) {
    const double bytes = stage_message_bytes(model_, shape_);
    const int from = stage_peer(backward ? g + 1 : g - 1);
    Op op = new_op(*rank_, fmt::format("recv {} mb{}", backward ? "grad" : "act", mb), Stream::Compute,
                   Phase::Communication, {}, RecvOp{from, bytes, tag(mb, g, backward)});
    op.micro_batch = mb;
    int last = add(std::move(op));
    if (spec_.tensor > 1 && !shape_.sequence_parallel) {
      const double whole = bytes * spec_.tensor;
      KernelStep gather;
      gather.name = "gather";
      gather.collective = true;
      gather.kind = CollectiveKind::AllGather;
      gather.group = GroupKind::Tensor;
      gather.bytes = whole;
      last = emit({gather}, backward ? "recv grad" : "recv act", Phase::Communication, mb, last);
    }
    return last;
  }

  void send(int mb, int g, bool backward, int after) {
    const double bytes = stage_message_bytes(model_, shape_);
    Op op = new_op(*rank_, fmt::format("send {} mb{}", backward ? "grad" : "act", mb), Stream::Posted,
                   Phase::Communication, {after}, SendOp{stage_peer(g), bytes, tag(mb, g, backward)});
    op.micro_batch = mb;
    add(std::move(op));
  }

  // ZeRO-3: a block's parameters gathered over the data group before its forward and its backward,
  // on the comm stream. The next block's gather is issued as soon as the current block's first
  // kernel has run (`after`), ahead of the current block's gradient reduce-scatter: prefetch one
  // block ahead, as FSDP's forward and backward prefetch (framework.backward_prefetch post: in the
  // backward, once the current block's last kernel has run). Returns the deps of the block's first
  // kernel (its gather), issuing the gather now when it was not prefetched (after = -1).
  std::vector<int> zero3_gather(int block, int mb, bool backward, int after) {
    const int g = group_of(GroupKind::Data);
    if (spec_.zero < 3 || g < 0) return {};
    const auto key = std::make_tuple(block, mb, backward);
    if (after < 0) {
      const auto found = prefetched_.find(key);
      if (found != prefetched_.end()) {
        const int id = found->second;
        prefetched_.erase(found);
        return {id};
      }
    }
    const BlockParams& p = block_params_;
    std::vector<int> deps;
    if (after >= 0) deps.push_back(after);
    Op op = comm_op(
        *rank_, fmt::format("zero3 gather L{} {} mb{}", block, backward ? "bwd" : "fwd", mb), Stream::Comm, deps,
        collective_op(CollectiveKind::AllGather, param_gather_bytes(job_, p.dense, linear_weights_.dense), g));
    op.micro_batch = mb;
    const int id = add(std::move(op));
    if (after >= 0) prefetched_[key] = id;
    return {id};
  }

  // A block's gradients after its backward: ZeRO-3 reduce-scatters them every micro-batch; the
  // others collect them into buckets, reduced in the chunk's last micro-batch.
  void gradients_ready(int block, int after, int mb, bool last_micro_batch, int chunk) {
    const BlockParams& p = block_params_;
    const double grad = dtype_bytes(job_.model.grad_dtype);
    if (spec_.zero >= 3) {
      // ZeRO-3 reduce-scatters a block's gradients after each micro-batch's backward.
      const int g = group_of(GroupKind::Data);
      if (g >= 0) {
        Op op = comm_op(*rank_, fmt::format("zero3 reduce-scatter L{} mb{}", block, mb), Stream::Comm, {after},
                        collective_op(CollectiveKind::ReduceScatter, p.dense * grad, g));
        op.micro_batch = mb;
        reductions_.push_back(add(std::move(op)));
      }
      if (p.expert > 0 && last_micro_batch)
        bucket(GroupKind::ExpertData, p.expert * grad, after, chunk, fmt::format("L{}", block));
      return;
    }
    if (!last_micro_batch) return;
    bucket(GroupKind::Data, p.dense * grad, after, chunk, fmt::format("L{}", block));
    if (p.expert > 0) bucket(GroupKind::ExpertData, p.expert * grad, after, chunk, fmt::format("L{}", block));
  }

  // The embedding's or the output layer's gradients after their backward in the chunk's last
  // micro-batch: bucketed like a block's (under ZeRO-3 too: they stay whole through the forward and
  // backward, reduce-scattered and gathered back around the step as under ZeRO 1 and 2).
  void end_gradients_ready(double params, int after, bool last_micro_batch, int chunk, const char* what) {
    if (last_micro_batch && params > 0) {
      bucket(GroupKind::Data, params * dtype_bytes(job_.model.grad_dtype), after, chunk, what);
    }
  }

  // Adds gradient bytes to the group's open bucket, reducing it if that closes it (gradient_buckets.hpp).
  void bucket(GroupKind kind, double bytes, int after, int chunk, const std::string& what) {
    if (group_of(kind) < 0) return;
    if (auto closed = buckets_.add(kind, chunk, bytes, after, what))
      reduce(closed->kind, closed->bytes, closed->label, {closed->ready});
  }

  void reduce(GroupKind kind, double bytes, std::string label, std::vector<int> deps) {
    const bool sharded = spec_.zero >= 1;
    const CollectiveKind ck = sharded ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce;
    reductions_.push_back(add(
        comm_op(*rank_, std::move(label), Stream::Comm, std::move(deps), collective_op(ck, bytes, group_of(kind)))));
    if (sharded) gathers_.push_back({kind, bytes / dtype_bytes(job_.model.grad_dtype)});
  }

  void finish_iteration() {
    for (int c = 0; c < chunks_; ++c) {
      for (GroupKind kind : {GroupKind::Data, GroupKind::ExpertData}) {
        if (auto closed = buckets_.close(kind, c)) reduce(closed->kind, closed->bytes, closed->label, {closed->ready});
      }
    }
    for (const GradientBuckets::Closed& d : buckets_.deferred()) reduce(d.kind, d.bytes, d.label, {last_backward_});
    // Tied embeddings: the first and last stages' copies of the word embedding sum their gradients.
    std::vector<int> update_deps = reductions_;
    const int tied = groups_.tied[local_];
    if (tied >= 0) {
      const double bytes = embedding_params(model_, shape_) * dtype_bytes(job_.model.grad_dtype);
      update_deps.push_back(add(comm_op(*rank_, "tied embedding grads", Stream::Comm, {last_backward_},
                                        collective_op(CollectiveKind::AllReduce, bytes, tied))));
    }
    if (update_deps.empty()) update_deps.push_back(last_backward_);
    // Megatron's optimizer step (MixedPrecisionOptimizer.step) first unscales the rank's gradient
    // shard in place, checking it for overflow, and sums its squared norm (three passes over the
    // gradients), then sums norm and overflow flag over the replica's tensor and pipeline shards:
    // every stage waits for the pipeline to drain.
    const double shard = spec_.zero >= 1 ? layout_.extent(Dim::Data) * layout_.extent(Dim::Expert) * spec_.context : 1;
    const OptimizerWork work = optimizer_work(job_, local_params() / shard, local_params());
    update_deps = {
        add(new_op(*rank_, "gradient unscale and norm", Stream::Compute, Phase::Optimizer, update_deps, work.norm))};
    const int model_group = group_of(GroupKind::Model);
    if (model_group >= 0) {
      update_deps = {add(comm_op(*rank_, "gradient norm", Stream::Compute, update_deps,
                                 collective_op(CollectiveKind::AllReduce, 8, model_group)))};
    }
    Op update = new_op(*rank_, "optimizer step", Stream::Compute, Phase::Optimizer, update_deps, work.step);
    const int stepped = add(std::move(update));
    // ZeRO 1 and 2: each rank updated its shard; the new parameters are gathered back, a bucket at the share of
    // linear-layer weights its kind's parameters hold on this rank (param_gather_bytes): none in the embedding and
    // head, the only dense parameters ZeRO-3's buckets hold (it gathers the blocks' itself).
    const double held = chunks_ * blocks_per_stage_, blocks = spec_.zero >= 3 ? 0 : held;
    const double ends = local_params() - held * (block_params_.dense + block_params_.expert);
    const double dense_fp8 = blocks * linear_weights_.dense / std::max(blocks * block_params_.dense + ends, 1.0);
    for (const auto& [kind, params] : gathers_) {
      const double fp8 =
          params * (kind == GroupKind::ExpertData ? linear_weights_.expert / block_params_.expert : dense_fp8);
      add(comm_op(*rank_, fmt::format("{} params all-gather", group_kind_name(kind)), Stream::Comm, {stepped},
                  collective_op(CollectiveKind::AllGather, param_gather_bytes(job_, params, fp8), group_of(kind))));
    }
    reductions_.clear();
    gathers_.clear();
    last_backward_ = -1;
  }

  // The last stage's final norm and output layer (with tied embeddings and one stage, the output
  // layer is the embedding itself, counted there).
  double output_params() const { return dtsim::output_params(model_, shape_, stages_); }

  // Parameters this rank holds (its blocks, and the embedding or output layer on the end stages).
  double local_params() const {
    double params = 0;
    for (int c = 0; c < chunks_; ++c) {
      params += blocks_per_stage_ * (block_params_.dense + block_params_.expert);
      if (first_stage(c)) params += embedding_params(model_, shape_);
      if (last_stage(c)) params += output_params();
    }
    return params;
  }

  const JobSpec& job_;
  PlanDetail detail_;
  const TransformerSpec& model_;
  HybridSpec spec_;
  HybridLayout layout_;
  ShardShape shape_;
  Plan& plan_;
  const std::vector<int>& workers_;
  const CollectiveAlgorithm& algorithm_;
  int micro_batches_;
  int chunks_;
  int stages_;  // global stages: p x chunks
  int blocks_per_stage_;
  // The kernels of one micro-batch, the same for every micro-batch and block (transformer_ops.hpp).
  std::vector<KernelStep> block_forward_;
  std::vector<KernelStep> block_backward_;
  std::vector<KernelStep> recompute_;  // what runs again before a block's backward
  std::vector<KernelStep> embedding_forward_;
  std::vector<KernelStep> embedding_backward_;
  std::vector<KernelStep> head_forward_;
  std::vector<KernelStep> head_backward_;
  BlockParams block_params_;
  BlockParams linear_weights_;  // of those, the linear layers' (block_linear_weights)
  HybridGroups groups_;         // the job's communicators (groups.hpp)

  // The rank being compiled.
  RankProgram* rank_ = nullptr;
  int local_ = 0;
  std::map<int, int> seq_;  // by plan group: collectives issued so far this iteration
  std::map<std::string, std::vector<BlockItem>> block_items_;  // this rank's, by what runs ("fwd", "bwd", "fwd x12")
  BesidePairs pairs_;                                          // this rank's collective-and-GEMM composites (pair_op)
  GradientBuckets buckets_;                                    // the data-parallel gradient buckets
  std::vector<int> reductions_;                                // gradient reductions the update waits for
  std::vector<std::pair<GroupKind, double>> gathers_;          // ZeRO 1/2: parameters to gather after the step
  int last_backward_ = -1;
  std::map<std::tuple<int, int, bool>, int> prefetched_;  // ZeRO-3 gathers issued ahead: (block, mb, backward) -> op
};

}  // namespace

void compile_hybrid(const Scenario& s, const JobSpec& job, int job_index, Plan& plan, bool representatives,
                    PlanDetail detail) {
  if (detail == PlanDetail::Blocks && !representatives) {
    throw RuntimeError("plan: blocks with every collective inside are compiled for representatives only");
  }
  HybridCompiler compiler(s, job, job_index, plan, detail);
  const HybridLayout& layout = compiler.layout();
  const std::vector<int>& workers = plan.jobs[job_index].workers;
  std::map<std::pair<int, int>, int> per_node_stage;  // (node, stage) -> ranks
  for (int local = 0; local < static_cast<int>(workers.size()); ++local) {
    RankProgram& r = plan.ranks[workers[local]];
    r.stage = layout.stage(local);
    ++per_node_stage[{r.where.node, r.stage}];
  }
  for (int local = 0; local < static_cast<int>(workers.size()); ++local) {
    if (representatives && !represents_stage(layout, local)) continue;
    RankProgram& r = plan.ranks[workers[local]];
    if (representatives) r.mirrored = per_node_stage[{r.where.node, r.stage}];
    compiler.compile(local);
  }
}

}  // namespace dtsim
