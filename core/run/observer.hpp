// The Observer: executors report when each op of each rank started and ended; metrics and the
// trace are computed from these records, so every executor produces the same files.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/run/composite_timing.hpp"

namespace dtsim {

struct OpRecord {
  int rank = 0;
  int iteration = 0;
  int op = 0;  // index into the rank's program
  double start = 0;
  double end = 0;
  // Backup workers: the op was running when its iteration's quorum passed and ended there, cut
  // short (the ops after it in the worker's compute leave no record).
  bool cut = false;
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_op(const OpRecord& record) = 0;
};

// Keeps every record in memory.
class Recorder : public Observer {
 public:
  void on_op(const OpRecord& record) override { records_.push_back(record); }
  const std::vector<OpRecord>& records() const { return records_; }
  void reserve(size_t n) { records_.reserve(n); }

 private:
  std::vector<OpRecord> records_;
};

// How a run was produced, for metrics.json.
struct RunInfo {
  std::string engine;    // "analytical", "simgrid", "cpu", "cuda"
  std::string fidelity;  // "closed_form", "flow", "step", "real"
  double wall_time_s = 0;
  // A plan with composites (PlanDetail in compiler.hpp): how the engine timed each (Plan::composites),
  // what metrics split their records by.
  std::vector<CompositeTiming> composites{};
};

// The interface every executor implements: run the Plan, report each op to the Observer.
class Executor {
 public:
  virtual ~Executor() = default;
  virtual RunInfo run(const Plan& plan, Observer& observer) = 0;
};

}  // namespace dtsim
