// Classifying op records into training events (see events.hpp).
#include "learn/events.hpp"

#include <algorithm>
#include <optional>
#include <tuple>

namespace dtsim::learn {
namespace {

struct Kind {
  EventKind kind;
  bool at_start;  // the event happens when the op starts (a send reads its data then)
  int shard;
  int worker_rank;  // the worker it concerns (a rank), or -1
};

std::optional<Kind> classify(const Plan& plan, const RankProgram& r, const Op& op, int first_forward) {
  const JobPlan& jp = plan.jobs[r.job];
  if (r.role == Role::Worker) {
    if (op.id == first_forward) return Kind{EventKind::Gradient, true, -1, r.rank};
    if (std::holds_alternative<UpdateOp>(op.body)) return Kind{EventKind::WorkerStep, false, -1, r.rank};
    if (const auto* s = std::get_if<SendOp>(&op.body)) return Kind{EventKind::Push, true, s->tag, r.rank};
    if (const auto* v = std::get_if<RecvOp>(&op.body)) return Kind{EventKind::Pull, false, v->tag - jp.shards, r.rank};
    return std::nullopt;
  }
  if (const auto* v = std::get_if<RecvOp>(&op.body)) return Kind{EventKind::ServerRecv, false, r.shard, v->peer};
  if (std::holds_alternative<UpdateOp>(op.body)) return Kind{EventKind::ServerUpdate, false, r.shard, r.serves};
  if (const auto* s = std::get_if<SendOp>(&op.body)) return Kind{EventKind::ServerSend, true, r.shard, s->peer};
  return std::nullopt;
}

}  // namespace

std::vector<LearnEvent> learner_events(const Plan& plan, int job, const std::vector<OpRecord>& records) {
  const JobPlan& jp = plan.jobs[job];
  std::vector<int> worker_index(plan.ranks.size(), -1);
  for (size_t i = 0; i < jp.workers.size(); ++i) worker_index[static_cast<size_t>(jp.workers[i])] = static_cast<int>(i);
  // Per rank: the kind of each op (or none).
  std::vector<std::vector<std::optional<Kind>>> kinds(plan.ranks.size());
  for (const RankProgram& r : plan.ranks) {
    if (r.job != job) continue;
    int first_forward = -1;
    for (const Op& op : r.ops) {
      if (op.phase == Phase::Forward && first_forward < 0) first_forward = op.id;
    }
    for (const Op& op : r.ops) kinds[static_cast<size_t>(r.rank)].push_back(classify(plan, r, op, first_forward));
  }
  std::vector<LearnEvent> events;
  for (const OpRecord& rec : records) {
    const auto& ks = kinds[static_cast<size_t>(rec.rank)];
    if (ks.empty() || !ks[static_cast<size_t>(rec.op)]) continue;
    const Kind& k = *ks[static_cast<size_t>(rec.op)];
    const int worker = k.worker_rank >= 0 ? worker_index[static_cast<size_t>(k.worker_rank)] : -1;
    events.push_back(
        LearnEvent{k.at_start ? rec.start : rec.end, k.kind, rec.iteration, worker, k.shard, rec.rank, rec.op});
  }
  std::sort(events.begin(), events.end(), [](const LearnEvent& a, const LearnEvent& b) {
    return std::make_tuple(a.time, a.iteration, a.kind, a.rank, a.op) <
           std::make_tuple(b.time, b.iteration, b.kind, b.rank, b.op);
  });
  return events;
}

}  // namespace dtsim::learn
