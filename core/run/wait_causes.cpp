// Attributing a rank's waiting to causes from its op records (see wait_causes.hpp).
#include "core/run/wait_causes.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/intervals.hpp"

namespace dtsim {
namespace {

enum class Cause { Pipeline, Barrier, ServerBusy, Idle };

// What a gap ending at the start of this op waited for.
Cause cause_before(const Plan& plan, const RankProgram& rank, const Op& op, bool synchronous) {
  // A composite waited for what its first part waits for.
  if (const auto* c = std::get_if<ComputeOp>(&op.body); c && c->composite >= 0) {
    const std::vector<Op>& parts = plan.composites[c->composite].parts;
    if (!parts.empty()) return cause_before(plan, rank, parts.front(), synchronous);
  }
  if (const auto* c = std::get_if<CollectiveOp>(&op.body)) {
    return plan.groups[c->group].kind == GroupKind::Model ? Cause::Pipeline : Cause::Barrier;
  }
  if (rank.stage >= 0 && std::holds_alternative<RecvOp>(op.body)) return Cause::Pipeline;
  int peer = -1;
  if (const auto* s = std::get_if<SendOp>(&op.body)) peer = s->peer;
  if (const auto* r = std::get_if<RecvOp>(&op.body)) peer = r->peer;
  if (peer >= 0) {
    if (synchronous) return Cause::Barrier;
    return rank.role == Role::Worker && plan.ranks[peer].role == Role::Server ? Cause::ServerBusy : Cause::Idle;
  }
  return is_compute(op.body) && rank.role == Role::Server ? Cause::ServerBusy : Cause::Idle;
}

}  // namespace

WaitCauses& WaitCauses::operator+=(const WaitCauses& o) {
  barrier += o.barrier;
  staleness += o.staleness;
  server_busy += o.server_busy;
  idle += o.idle;
  failure += o.failure;
  pipeline += o.pipeline;
  return *this;
}

WaitCauses WaitCauses::scaled(double f) const {
  WaitCauses w = *this;
  for (double* v : {&w.barrier, &w.staleness, &w.server_busy, &w.idle, &w.pipeline, &w.failure}) *v *= f;
  return w;
}

WaitCauses wait_causes(const Plan& plan, int rank_id, const std::vector<OpRecord>& records, double lo, double hi,
                       bool synchronous) {
  const RankProgram& rank = plan.ranks[rank_id];
  std::vector<Interval> busy, gates, quorums;
  std::vector<std::pair<double, int>> starts;  // (start, op) of the ops that can end a gap
  for (const auto& r : records) {
    const OpBody& body = rank.ops[r.op].body;
    if (std::holds_alternative<GateOp>(body)) {
      gates.emplace_back(r.start, r.end);
    } else if (std::holds_alternative<QuorumOp>(body)) {
      quorums.emplace_back(r.start, r.end);
    } else {
      busy.emplace_back(r.start, r.end);
      starts.emplace_back(r.start, r.op);
    }
  }
  merge_intervals(busy);
  // A rank may start its first measured iteration before the window (it ended its warm-up before
  // the slowest rank did). As wait_s does, count that work as if it fell in the window: it takes
  // the place of the same stretch of the rank's last wait (the periodic view of the iterations).
  double outside = 0;
  for (auto& [a, b] : busy) {
    outside += std::max(0.0, std::min(b, lo) - a) + std::max(0.0, b - std::max(a, hi));
    a = std::max(a, lo);
    b = std::min(b, hi);
  }
  merge_intervals(gates);
  merge_intervals(quorums);
  std::sort(starts.begin(), starts.end());
  WaitCauses w;
  double t = lo;
  auto gap = [&](double a, double b) {
    const double rounding = 1e-12 * std::max(1.0, std::abs(b));
    if (b - a <= rounding) return;  // rounding between ops that follow each other
    const double stale = intervals_overlap(gates, a, b);
    const double quorum = intervals_overlap(quorums, a, b);
    const double rest = std::max(0.0, (b - a) - stale - quorum);
    w.staleness += stale;
    w.barrier += quorum;
    // The op(s) that ended the gap (starting at b, give or take the rounding of two sums of the
    // same durations); after the last op, a synchronous rank waits for its peers.
    Cause cause = synchronous ? Cause::Barrier : Cause::Idle;
    const auto first = std::lower_bound(starts.begin(), starts.end(), std::make_pair(b - rounding, -1));
    for (auto it = first; it != starts.end() && it->first <= b + rounding; ++it) {
      const Cause c = cause_before(plan, rank, rank.ops[it->second], synchronous);
      if (it == first || static_cast<int>(c) < static_cast<int>(cause)) cause = c;
    }
    switch (cause) {
      case Cause::Pipeline: w.pipeline += rest; break;
      case Cause::Barrier: w.barrier += rest; break;
      case Cause::ServerBusy: w.server_busy += rest; break;
      case Cause::Idle: w.idle += rest; break;
    }
  };
  for (const auto& [a, b] : busy) {
    if (b <= a) continue;
    gap(t, a);
    t = std::max(t, b);
  }
  gap(t, std::max(t, hi - outside));
  return w;
}

}  // namespace dtsim
