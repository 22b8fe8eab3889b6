// The MPI side every real backend shares: initialisation with MPI_THREAD_MULTIPLE, clocks
// aligned to rank 0's, waiting on requests without hogging a shared core, and gathering each
// rank's results on rank 0.
#pragma once

#include <mpi.h>

#include <atomic>
#include <span>
#include <string>
#include <vector>

#include "core/run/observer.hpp"

namespace dtsim::real {

// MPI_Init_thread / MPI_Finalize for the life of main. Throws RuntimeError if the library cannot
// give MPI_THREAD_MULTIPLE (the comm and posted threads call MPI beside the compute thread).
class MpiWorld {
 public:
  MpiWorld(int& argc, char**& argv);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Ends every rank of the job with `code` (for a failure on one rank that would leave the
  // others blocked).
  void abort(int code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
};

// Seconds since a common start: MPI_Wtime plus this rank's offset to rank 0's clock (estimated
// from the fastest of a few ping-pongs with rank 0), minus rank 0's time at the start barrier.
class Clock {
 public:
  Clock() = default;
  // Collective over `comm`.
  static Clock aligned(MPI_Comm comm);
  double now() const { return MPI_Wtime() + offset_ - start_; }
  double offset() const { return offset_; }

 private:
  double offset_ = 0;
  double start_ = 0;
};

// Makes this thread's short sleeps (the 20 us back-offs of the polling waits) wake within about
// 1 us instead of the default 50 us timer slack, which let a finished transfer sit unnoticed for
// 50 to 70 us per wait. Idempotent per thread; wait_all calls it.
void precise_sleeps();

// Completes every request, polling with MPI_Testall and backing off (yield, then short sleeps)
// so a waiting thread leaves the core to the compute thread. Throws RuntimeError on an MPI error,
// or when `cancel` is set (another thread of the rank failed).
void wait_all(std::span<MPI_Request> requests, const std::atomic<bool>* cancel = nullptr);

// Lets this thread's waits keep polling with yields (up to kIdlePolling) while *busy is 0: the
// rank's compute thread has nothing running, so polling takes no core from its GEMMs. A rank that
// enters a collective before its peer otherwise sleeps after 200 yields and notices the peer's
// first message a sleep late (a 400 KB AllReduce on 2 ranks: 56 us after the last rank entered in
// runs, 15 us in calibration). Null (the default) turns it off.
void poll_while_idle(const std::atomic<int>* busy);
inline constexpr double kIdlePolling = 2e-3;

// Throws RuntimeError naming `what` unless rc is MPI_SUCCESS.
void check_mpi(int rc, const char* what);

// Rank 0 receives every rank's records (others get an empty vector).
std::vector<OpRecord> gather_records(const std::vector<OpRecord>& mine, MPI_Comm comm);
// Rank 0 receives every rank's string, in rank order (others get an empty vector).
std::vector<std::string> gather_strings(const std::string& mine, MPI_Comm comm);

}  // namespace dtsim::real
