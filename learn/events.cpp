// Classifying op records into training events (see events.hpp).
#include "learn/events.hpp"

#include <algorithm>
#include <map>
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
    if (std::holds_alternative<GossipOp>(op.body)) return Kind{EventKind::Gossip, false, -1, r.rank};
    if (const auto* s = std::get_if<SendOp>(&op.body)) return Kind{EventKind::Push, true, s->tag, r.rank};
    if (const auto* v = std::get_if<RecvOp>(&op.body)) return Kind{EventKind::Pull, false, v->tag - jp.shards, r.rank};
    return std::nullopt;
  }
  if (const auto* v = std::get_if<RecvOp>(&op.body)) return Kind{EventKind::ServerRecv, false, r.shard, v->peer};
  if (std::holds_alternative<UpdateOp>(op.body)) return Kind{EventKind::ServerUpdate, false, r.shard, r.serves};
  if (const auto* s = std::get_if<SendOp>(&op.body)) return Kind{EventKind::ServerSend, true, r.shard, s->peer};
  return std::nullopt;
}

// Backup workers: which gradients each iteration's quorum keeps. A worker reached the quorum op
// (start of its record) when its backward ended; the quorum passed at the end of the records (the
// same for all). Those that arrived before it are kept; at the very instant it passed, workers
// whose compute before the quorum op all ran to its end (no op abandoned, none cut) come first,
// then the order the engine recorded their quorum ops in. The first `needed` are kept.
void add_kept(const Plan& plan, int job, const std::vector<OpRecord>& records, const std::vector<int>& worker_index,
              std::vector<LearnEvent>& events) {
  std::vector<int> quorum_op(plan.ranks.size(), -1);
  int needed = 0;
  for (int w : plan.jobs[job].workers) {
    for (const Op& op : plan.ranks[static_cast<size_t>(w)].ops) {
      if (const auto* q = std::get_if<QuorumOp>(&op.body)) {
        quorum_op[static_cast<size_t>(w)] = op.id;
        needed = q->needed;
      }
    }
  }
  if (needed == 0) return;
  struct Arrival {
    double start, end;
    size_t position;
    int rank, op;
  };
  std::map<int, std::vector<Arrival>> arrivals;  // per iteration
  std::map<std::pair<int, int>, int> ran;        // (rank, iteration): records of ops before the quorum op
  for (size_t i = 0; i < records.size(); ++i) {
    const OpRecord& rec = records[i];
    const int q = quorum_op[static_cast<size_t>(rec.rank)];
    if (q < 0) continue;
    if (rec.op < q && !rec.cut) ++ran[{rec.rank, rec.iteration}];
    if (rec.op == q) arrivals[rec.iteration].push_back(Arrival{rec.start, rec.end, i, rec.rank, rec.op});
  }
  for (auto& [it, list] : arrivals) {
    const int iteration = it;  // a lambda may not capture a structured binding (before C++20 in clang 14)
    const auto complete = [&](const Arrival& a) {
      return ran[{a.rank, iteration}] == quorum_op[static_cast<size_t>(a.rank)];
    };
    std::sort(list.begin(), list.end(), [&](const Arrival& a, const Arrival& b) {
      return std::make_tuple(a.start, !complete(a), a.position) < std::make_tuple(b.start, !complete(b), b.position);
    });
    double passed = list.front().end;
    for (const Arrival& a : list) passed = std::min(passed, a.end);
    for (size_t i = 0; i < list.size() && static_cast<int>(i) < needed; ++i) {
      const Arrival& a = list[i];
      LearnEvent e{passed, EventKind::Kept, iteration, worker_index[static_cast<size_t>(a.rank)], -1, -1, a.rank, a.op};
      events.push_back(e);
    }
  }
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
    int peer = -1;
    if (k.kind == EventKind::Gossip) {
      peer = worker_index[static_cast<size_t>(plan.gossip_peer[static_cast<size_t>(rec.rank)][rec.iteration])];
    }
    events.push_back(
        LearnEvent{k.at_start ? rec.start : rec.end, k.kind, rec.iteration, worker, k.shard, peer, rec.rank, rec.op});
  }
  add_kept(plan, job, records, worker_index, events);
  std::sort(events.begin(), events.end(), [](const LearnEvent& a, const LearnEvent& b) {
    return std::make_tuple(a.time, a.iteration, a.kind, a.rank, a.op) <
           std::make_tuple(b.time, b.iteration, b.kind, b.rank, b.op);
  });
  return events;
}

}  // namespace dtsim::learn
