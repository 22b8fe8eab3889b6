// Spreading a sweep's points over MPI ranks (`mpirun -np K dtsim sweep ... --mpi`): rank 0
// decides which points remain, every rank runs its share (point i of the remaining list goes to
// rank i mod K, each in its own process), and rank 0 gathers every result. Built only with MPI;
// without it, --mpi is refused.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/scenario/scenario.hpp"
#include "sim/sweep/point_runner.hpp"

namespace dtsim::cli {

// Initializes MPI for the duration of a sweep; rank() and size() once made.
class MpiSweep {
 public:
  MpiSweep();
  ~MpiSweep();
  MpiSweep(const MpiSweep&) = delete;
  MpiSweep& operator=(const MpiSweep&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

  // `pending` counts at rank 0 only. At rank 0, `done` is called for every point of every rank
  // (its own as they finish, the others' when gathered). Throws RuntimeError at every rank if
  // any rank failed (under OnFailure::Stop; under Report a failed point reaches `done` as sweep::failed_point).
  void run(const std::vector<Scenario>& scenarios, std::vector<size_t> pending, int jobs,
           const std::function<void(size_t index, const nlohmann::json& metrics)>& done,
           const sweep::PointHook& hook = {}, sweep::OnFailure on_failure = sweep::OnFailure::Stop);

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace dtsim::cli
