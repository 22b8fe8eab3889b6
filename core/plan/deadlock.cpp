// One iteration played as a dataflow (no times): each op counts the conditions it waits for, and
// ops that end release their dependents, the next op of their stream, their message's other end or
// their collective's members. O(ops) time and memory.
#include "core/plan/deadlock.hpp"

#include <map>
#include <vector>

namespace dtsim {
namespace {

struct Ref {
  int rank;
  int op;
};

class Dataflow {
 public:
  explicit Dataflow(const Plan& plan) : plan_(plan) {
    const size_t ranks = plan.ranks.size();
    waits_.resize(ranks);
    ended_.resize(ranks);
    reached_.resize(ranks);
    offset_.resize(ranks);
    next_.resize(ranks);
    for (size_t r = 0; r < ranks; ++r) {
      const std::vector<Op>& ops = plan.ranks[r].ops.ops();
      waits_[r].assign(ops.size(), 0);
      ended_[r].assign(ops.size(), false);
      reached_[r].assign(ops.size(), false);
      // Each op's successors in one array (offsets per op): its dependents and its stream's next op.
      std::vector<int>& offset = offset_[r];
      offset.assign(ops.size() + 1, 0);
      for_each_edge(ops, [&](int from, int to) {
        ++offset[static_cast<size_t>(from) + 1];
        ++waits_[r][static_cast<size_t>(to)];
      });
      for (size_t o = 0; o < ops.size(); ++o) offset[o + 1] += offset[o];
      next_[r].resize(static_cast<size_t>(offset.back()));
      std::vector<int> fill(offset.begin(), offset.end() - 1);
      for_each_edge(ops,
                    [&](int from, int to) { next_[r][static_cast<size_t>(fill[static_cast<size_t>(from)]++)] = to; });
    }
  }

  template <class F>
  static void for_each_edge(const std::vector<Op>& ops, F&& edge) {
    int last[2] = {-1, -1};
    for (const Op& op : ops) {
      for (const int d : op.deps) edge(d, op.id);
      if (op.stream == Stream::Posted) continue;
      int& prev = last[static_cast<int>(op.stream)];
      if (prev >= 0) edge(prev, op.id);
      prev = op.id;
    }
  }

  void run() {
    for (size_t r = 0; r < plan_.ranks.size(); ++r) {
      for (size_t o = 0; o < waits_[r].size(); ++o) {
        if (waits_[r][o] == 0) reach(Ref{static_cast<int>(r), static_cast<int>(o)});
      }
    }
    while (!ending_.empty()) {
      const Ref e = ending_.back();
      ending_.pop_back();
      const auto r = static_cast<size_t>(e.rank);
      for (int i = offset_[r][static_cast<size_t>(e.op)]; i < offset_[r][static_cast<size_t>(e.op) + 1]; ++i) {
        const int next = next_[r][static_cast<size_t>(i)];
        if (--waits_[r][static_cast<size_t>(next)] == 0) reach(Ref{e.rank, next});
      }
    }
  }

  std::optional<StuckOp> stuck() const {
    std::optional<StuckOp> first;
    for (size_t r = 0; r < plan_.ranks.size(); ++r) {
      for (size_t o = 0; o < ended_[r].size(); ++o) {
        if (ended_[r][o]) continue;
        if (reached_[r][o]) return StuckOp{static_cast<int>(r), static_cast<int>(o), true};
        if (!first) first = StuckOp{static_cast<int>(r), static_cast<int>(o), false};
      }
    }
    return first;
  }

 private:
  void end(Ref x) {
    ended_[static_cast<size_t>(x.rank)][static_cast<size_t>(x.op)] = true;
    ending_.push_back(x);
  }

  void reach(Ref x) {
    reached_[static_cast<size_t>(x.rank)][static_cast<size_t>(x.op)] = true;
    const RankProgram& rank = plan_.ranks[static_cast<size_t>(x.rank)];
    const OpBody& body = rank.ops[static_cast<size_t>(x.op)].body;
    if (const auto* s = std::get_if<SendOp>(&body)) {
      meet(std::make_tuple(x.rank, s->peer, s->tag), x);
    } else if (const auto* v = std::get_if<RecvOp>(&body)) {
      meet(std::make_tuple(v->peer, x.rank, v->tag), x);
    } else if (const auto* c = std::get_if<CollectiveOp>(&body)) {
      std::vector<Ref>& members = collectives_[std::make_pair(c->group, c->seq)];
      members.push_back(x);
      if (members.size() == plan_.groups[static_cast<size_t>(c->group)].ranks.size()) {
        for (const Ref m : members) end(m);
        collectives_.erase(std::make_pair(c->group, c->seq));
      }
    } else {
      end(x);
    }
  }

  // A message's ends, matched on (source, destination, tag).
  void meet(const std::tuple<int, int, int>& key, Ref x) {
    const auto [it, first] = messages_.emplace(key, x);
    if (first) return;
    end(it->second);
    end(x);
    messages_.erase(it);
  }

  const Plan& plan_;
  std::vector<std::vector<int>> waits_;
  std::vector<std::vector<bool>> ended_, reached_;
  std::vector<std::vector<int>> offset_, next_;
  std::vector<Ref> ending_;
  std::map<std::tuple<int, int, int>, Ref> messages_;
  std::map<std::pair<int, int>, std::vector<Ref>> collectives_;
};

}  // namespace

std::optional<StuckOp> find_deadlock(const Plan& plan) {
  Dataflow flow(plan);
  flow.run();
  return flow.stuck();
}

}  // namespace dtsim
