// The MPI side every real backend shares: initialisation with MPI_THREAD_MULTIPLE, clocks
// aligned to rank 0's, telling whether an MPI launcher started this process, and waiting on
// requests without hogging a shared core. (Gathers to rank 0 and the other host-side collectives
// are real/host_comm.hpp's.)
#pragma once

#include <mpi.h>

#include <atomic>
#include <span>

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

// Seconds since a common start: a time source (MPI_Wtime, or a steady clock for the threads of one
// process) plus this rank's offset to rank 0's clock, minus rank 0's time at the start barrier.
class Clock {
 public:
  using Source = double (*)();
  Clock() = default;
  Clock(Source source, double offset, double start) : source_(source), offset_(offset), start_(start) {}
  // Collective over `comm`: MPI_Wtime, the offset estimated from the fastest of a few ping-pongs
  // with rank 0.
  static Clock aligned(MPI_Comm comm);
  double now() const { return source_() + offset_ - start_; }
  double offset() const { return offset_; }

 private:
  static double mpi_wtime();
  Source source_ = &mpi_wtime;
  double offset_ = 0;
  double start_ = 0;
};

// Seconds on this process's steady clock (the time source of ranks that share one process).
double steady_seconds();

// Whether this process was started by an MPI launcher (mpirun, mpiexec, or srun with PMI/PMIx),
// read from the variables the launchers set. Without one, `dtsim-real --backend cuda` drives the
// node's GPUs from one process.
bool launched_by_mpi();

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

}  // namespace dtsim::real
