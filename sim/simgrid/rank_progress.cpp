// Rank progress: a mutex per rank, a condition variable per rank for its iterations and one per op
// that other actors wait on; an op's completion wakes the actors waiting on it (its own stream's
// next op runs in the same actor).
#include "sim/simgrid/rank_progress.hpp"

#include <algorithm>

namespace sg4 = simgrid::s4u;

namespace dtsim::sg {

RankProgress::RankProgress(const Plan& plan, Observer& observer, std::function<void(int)> next_iteration,
                           std::function<void(int, int)> done)
    : plan_(plan),
      observer_(observer),
      next_iteration_(std::move(next_iteration)),
      done_(std::move(done)),
      total_iterations_(plan.warmup + plan.iterations),
      states_(plan.ranks.size()) {
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    RankState& st = states_[r];
    st.done.assign(plan.ranks[r].ops.size(), 0);
    st.mutex = sg4::Mutex::create();
    st.changed = sg4::ConditionVariable::create();
    st.wakes.assign(plan.ranks[r].ops.size(), 0);
    st.op_done.resize(plan.ranks[r].ops.size());
    for (const Op& op : plan.ranks[r].ops) {
      for (int d : op.deps) {
        const Op& dep = plan.ranks[r].ops[d];
        if (op.stream != Stream::Posted && dep.stream == op.stream) continue;
        st.wakes[d] = 1;
        if (!st.op_done[d]) st.op_done[d] = sg4::ConditionVariable::create();
      }
    }
  }
}

bool RankProgress::complete() const {
  return std::all_of(states_.begin(), states_.end(),
                     [&](const RankState& s) { return s.iteration == total_iterations_; });
}

void RankProgress::wait_iteration(int rank, int iteration) {
  RankState& st = (*this)[rank];
  std::unique_lock lock(*st.mutex);
  while (st.iteration != iteration) st.changed->wait(lock);
}

void RankProgress::wait_deps(int rank, const std::vector<int>& deps) {
  RankState& st = (*this)[rank];
  std::unique_lock lock(*st.mutex);
  for (int d : deps) {
    // An op waited on by an actor other than its stream's has its own condition variable; a dep
    // on the same stream is done before the actor asks (its stream runs in order).
    while (!st.done[d]) (st.op_done[d] ? st.op_done[d] : st.changed)->wait(lock);
  }
}

bool RankProgress::deps_done(int rank, int op) const {
  const RankState& st = (*this)[rank];
  const auto& deps = plan_.ranks[rank].ops[op].deps;
  return std::all_of(deps.begin(), deps.end(), [&](int d) { return st.done[d] != 0; });
}

void RankProgress::finish(int rank, int op, double start, double end, bool record, bool cut) {
  RankState& st = (*this)[rank];
  if (record && plan_.ranks[rank].ops[op].runs_in(st.iteration))
    observer_.on_op(OpRecord{rank, st.iteration, op, start, end, cut});
  st.done[op] = 1;
  done_(rank, op);
  if (st.wakes[op]) st.op_done[op]->notify_all();
  if (++st.done_count == static_cast<int>(st.done.size())) {
    ++st.iteration;
    std::fill(st.done.begin(), st.done.end(), 0);
    st.done_count = 0;
    next_iteration_(rank);
    st.changed->notify_all();
  }
}

}  // namespace dtsim::sg
