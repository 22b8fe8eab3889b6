// The analytical engine's events in time order: an op made ready, or an op done. Ties resolve in
// the order the events were made, so a run is deterministic. A done event can be cancelled (an op
// cut short by its quorum, or re-timed under contention): it is dropped when its time comes.
#pragma once

#include <functional>
#include <queue>
#include <tuple>
#include <unordered_set>
#include <vector>

namespace dtsim::analytical {

struct Event {
  double time;
  long seq;  // ties resolve in the order events were made: deterministic
  bool done;
  int rank;
  int op;
  double start;  // for done events
  bool record;   // false: an op that did not run (skipped by its period, or abandoned): no record
  bool cut;      // a compute op cut short by its backup-worker quorum
  bool operator>(const Event& o) const { return std::tie(time, seq) > std::tie(o.time, o.seq); }
};

class EventQueue {
 public:
  // Returns the event's seq (what cancel() takes).
  long push(double time, bool done, int rank, int op, double start = 0, bool record = true, bool cut = false) {
    queue_.push(Event{time, seq_, done, rank, op, start, record, cut});
    return seq_++;
  }
  bool empty() const { return queue_.empty(); }
  double next_time() const { return queue_.top().time; }  // of the earliest event; not empty()
  Event pop() {
    const Event e = queue_.top();
    queue_.pop();
    return e;
  }
  // The done event `seq` will be dropped; false when it was cancelled already.
  bool cancel(long seq) { return cancelled_.insert(seq).second; }
  // Whether the done event `seq`, come up now, was cancelled (then forgotten).
  bool dropped(long seq) { return !cancelled_.empty() && cancelled_.erase(seq) > 0; }

 private:
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  long seq_ = 0;
  std::unordered_set<long> cancelled_;
};

}  // namespace dtsim::analytical
