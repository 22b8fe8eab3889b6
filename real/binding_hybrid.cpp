// Binding a hybrid-parallel rank's ops (core/plan/hybrid/compile.cpp) to real buffers:
//   data and expert-data gradient reductions   consecutive ranges of the rank's Grads, in program order; ZeRO-3's
//                                               per-micro-batch reduce-scatters reuse the ranges of the first
//                                               micro-batch's, k-th for k-th (every micro-batch's backward runs the
//                                               same blocks in the same order)
//   the tied embedding's all-reduce             a Grads range too, its values keyed from 0 (the first and last
//                                               stages hold it at different places of their models)
//   ZeRO 1/2 parameter all-gathers              Params from the first range of their group kind
//   tensor-group collectives                    the stream's scratch, carrying a row-parallel GEMM's partial products
//   every other collective (context, expert,    the stream's scratch, the pattern of values.hpp
//   ZeRO-3 gathers, gradient norm)
//   pipeline sends and receives                 one Message buffer each (fill_message / check_message)
//   the optimizer step                          Params and Grads, whole
// The rank's model is as long as its ranges, or as its step's parameters when longer (no data group: nothing is
// reduced, yet the step updates every parameter the rank holds).
#include <algorithm>
#include <cmath>
#include <map>
#include <variant>

#include "real/binding.hpp"

namespace dtsim::real {
namespace {

bool is_gradient_group(GroupKind kind) {
  return kind == GroupKind::Data || kind == GroupKind::ExpertData || kind == GroupKind::Pipeline;
}

}  // namespace

RankBinding bind_hybrid(const Plan& plan, int rank) {
  const RankProgram& prog = plan.ranks[rank];
  const JobPlan& job = plan.jobs[prog.job];
  RankBinding rb;
  rb.workers = static_cast<int>(job.workers.size());
  rb.worker_index = static_cast<int>(std::find(job.workers.begin(), job.workers.end(), rank) - job.workers.begin());
  rb.ops.resize(prog.ops.size());

  std::int64_t next = 0;                    // the model's next free element
  std::map<GroupKind, std::int64_t> first;  // where each kind's ranges begin
  std::map<int, int> seen_in_mb;            // ZeRO-3: reduce-scatters met so far in each micro-batch
  std::vector<Binding> zero3;               // the ranges of the first micro-batch's reduce-scatters
  double step_params = 0;
  for (const Op& op : prog.ops) {
    Binding& b = rb.ops[op.id];
    if (const auto* c = std::get_if<CollectiveOp>(&op.body)) {
      const GroupKind kind = plan.groups.at(c->group).kind;
      const std::int64_t n = elements_of(c->bytes);
      const bool reduces = c->kind == CollectiveKind::AllReduce || c->kind == CollectiveKind::ReduceScatter;
      if (is_gradient_group(kind) && reduces) {
        if (op.micro_batch >= 0) {  // ZeRO-3: the k-th of every micro-batch is the same block's gradients
          const int k = seen_in_mb[op.micro_batch]++;
          if (k < static_cast<int>(zero3.size())) {
            b = zero3[static_cast<size_t>(k)];
            continue;
          }
        }
        first.try_emplace(kind, next);
        b = Binding{BufferKind::Grads, -1, next, n, kind == GroupKind::Pipeline ? 0 : next};
        next += n;
        if (op.micro_batch >= 0) zero3.push_back(b);
      } else if (is_gradient_group(kind) && c->kind == CollectiveKind::AllGather && op.micro_batch < 0) {
        rb.replicas_agree = false;  // ZeRO 1 or 2: each rank stepped its own shard
        const std::int64_t from = first.count(kind) ? first[kind] : 0;
        b = Binding{BufferKind::Params, -1, from, n, from};
      } else {
        b = scratch_binding(rb, c->bytes, op.stream);
        if (kind == GroupKind::Tensor && c->kind != CollectiveKind::AllToAll) b.values = Values::TensorGemm;
      }
    } else if (std::holds_alternative<SendOp>(op.body) || std::holds_alternative<RecvOp>(op.body)) {
      const double bytes =
          std::holds_alternative<SendOp>(op.body) ? std::get<SendOp>(op.body).bytes : std::get<RecvOp>(op.body).bytes;
      b = Binding{BufferKind::Message, -1, 0, std::max<std::int64_t>(2, elements_of(bytes)), 0};
      b.message = static_cast<int>(rb.message_elements.size());
      rb.message_elements.push_back(b.elements);
    } else if (const auto* u = std::get_if<UpdateOp>(&op.body)) {
      step_params = std::max(step_params, u->params);
      b.buffer = BufferKind::Params;
    }
  }
  if (!zero3.empty()) rb.replicas_agree = false;  // ZeRO-3: as ZeRO 1 and 2
  rb.model_elements = std::max(next, static_cast<std::int64_t>(std::llround(step_params)));
  rb.local_elements = rb.model_elements;
  for (Binding& b : rb.ops) {
    if (b.buffer == BufferKind::Params && b.elements == 0) b.elements = rb.local_elements;
    if (b.buffer == BufferKind::Params) b.elements = std::min(b.elements, rb.local_elements - b.offset);
  }
  return rb;
}

int replica_group(const Plan& plan, int rank) {
  if (plan.ranks[rank].stage < 0) return -1;
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    const CommGroup& group = plan.groups[g];
    if (group.kind == GroupKind::Data && std::find(group.ranks.begin(), group.ranks.end(), rank) != group.ranks.end())
      return static_cast<int>(g);
  }
  return -2 - rank;
}

}  // namespace dtsim::real
