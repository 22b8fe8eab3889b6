// The ops of one rank across iterations: which have ended, and whether an op may start. The
// streams' threads wait here for their op's dependencies; the SyncPolicy decides when a rank may
// begin an iteration.
//
// Every policy uses BspPolicy here: a rank's own iterations follow each other. What makes ASP and
// SSP asynchronous is across ranks (the servers apply each push at once; the SSP gate reads the
// other workers' clocks: real/cpu/async_ps.cpp); stragglers and compression live in the op bodies.
#pragma once

#include <condition_variable>
#include <mutex>
#include <vector>

#include "core/plan/plan.hpp"

namespace dtsim::real {

class SyncPolicy {
 public:
  virtual ~SyncPolicy() = default;
  // Whether ops of iteration k may start, given how many ops of each iteration have ended.
  virtual bool may_begin(int k, const std::vector<int>& ended, int ops_per_iteration) const = 0;
};

// Bulk synchronous: iteration k starts once every op of iteration k-1 has ended on this rank
// (the collectives and the servers' replies make that a barrier across ranks).
class BspPolicy : public SyncPolicy {
 public:
  bool may_begin(int k, const std::vector<int>& ended, int ops_per_iteration) const override {
    return k == 0 || ended[k - 1] == ops_per_iteration;
  }
};

class OpBoard {
 public:
  OpBoard(const RankProgram& program, int iterations, const SyncPolicy& policy);

  // Blocks until `op` of iteration k may start; throws RuntimeError once cancelled.
  void wait_ready(int k, int op);
  // Wakes every waiter with an error (another stream of the rank failed).
  void cancel();
  // Whether `op` of iteration k may start now (for the posted-ops poller).
  bool ready(int k, int op);
  void finish(int k, int op);
  // Blocks until something ends or `micros` pass.
  void wait_change(int micros);

 private:
  bool ready_locked(int k, int op) const;

  const RankProgram& program_;
  const SyncPolicy& policy_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::vector<char>> done_;  // [iteration][op]
  std::vector<int> ended_;               // ops ended per iteration
  long generation_ = 0;
  bool cancelled_ = false;
};

}  // namespace dtsim::real
