// Dependency tracking for one rank's streams.
#include "real/op_board.hpp"

#include <chrono>

#include "core/base/error.hpp"

namespace dtsim::real {

OpBoard::OpBoard(const RankProgram& program, int iterations, const SyncPolicy& policy)
    : program_(program),
      policy_(policy),
      done_(static_cast<size_t>(iterations), std::vector<char>(program.ops.size(), 0)),
      ended_(static_cast<size_t>(iterations), 0) {}

bool OpBoard::ready_locked(int k, int op) const {
  if (!policy_.may_begin(k, ended_, static_cast<int>(program_.ops.size()))) return false;
  for (int d : program_.ops[op].deps) {
    if (!done_[k][d]) return false;
  }
  return true;
}

void OpBoard::wait_ready(int k, int op) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return cancelled_ || ready_locked(k, op); });
  if (cancelled_) throw RuntimeError("cancelled: another stream of this rank failed");
}

void OpBoard::cancel() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  changed_.notify_all();
}

bool OpBoard::ready(int k, int op) {
  std::lock_guard lock(mutex_);
  return ready_locked(k, op);
}

void OpBoard::finish(int k, int op) {
  {
    std::lock_guard lock(mutex_);
    done_[k][op] = 1;
    ++ended_[k];
    ++generation_;
  }
  changed_.notify_all();
}

void OpBoard::wait_change(int micros) {
  std::unique_lock lock(mutex_);
  const long seen = generation_;
  changed_.wait_for(lock, std::chrono::microseconds(micros), [&] { return generation_ != seen; });
}

}  // namespace dtsim::real
