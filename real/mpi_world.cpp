// MPI start-up, clock alignment, the launcher test and polite waiting.
#include "real/mpi_world.hpp"

#include <sys/prctl.h>

#include <chrono>
#include <cstdlib>
#include <limits>
#include <thread>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim::real {

MpiWorld::MpiWorld(int& argc, char**& argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (provided < MPI_THREAD_MULTIPLE) {
    MPI_Finalize();
    throw RuntimeError("the MPI library does not provide MPI_THREAD_MULTIPLE, which dtsim-real needs");
  }
}

MpiWorld::~MpiWorld() { MPI_Finalize(); }

void MpiWorld::abort(int code) const { MPI_Abort(MPI_COMM_WORLD, code); }

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw RuntimeError(fmt::format("{} failed: {}", what, std::string(text, static_cast<size_t>(len))));
}

double Clock::mpi_wtime() { return MPI_Wtime(); }

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool launched_by_mpi() {
  // OpenMPI's mpirun, PMIx (OpenMPI 5, srun --mpi=pmix), PMI-1/2 (MPICH's hydra, srun --mpi=pmi2),
  // MVAPICH2's mpirun_rsh.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

Clock Clock::aligned(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  constexpr int kRounds = 8;
  constexpr int kTag = 4242;
  Clock c;
  for (int peer = 1; peer < size; ++peer) {
    if (rank == 0) {
      for (int i = 0; i < kRounds; ++i) {
        double dummy = 0;
        MPI_Recv(&dummy, 1, MPI_DOUBLE, peer, kTag, comm, MPI_STATUS_IGNORE);
        const double t = MPI_Wtime();
        MPI_Send(&t, 1, MPI_DOUBLE, peer, kTag, comm);
      }
    } else if (rank == peer) {
      double best_rtt = std::numeric_limits<double>::infinity();
      for (int i = 0; i < kRounds; ++i) {
        const double sent = MPI_Wtime();
        MPI_Send(&sent, 1, MPI_DOUBLE, 0, kTag, comm);
        double remote = 0;
        MPI_Recv(&remote, 1, MPI_DOUBLE, 0, kTag, comm, MPI_STATUS_IGNORE);
        const double back = MPI_Wtime();
        if (back - sent < best_rtt) {
          best_rtt = back - sent;
          c.offset_ = remote - (sent + back) / 2;
        }
      }
    }
  }
  MPI_Barrier(comm);
  double start = MPI_Wtime();
  MPI_Bcast(&start, 1, MPI_DOUBLE, 0, comm);
  c.start_ = start;
  return c;
}

void precise_sleeps() {
  thread_local bool done = false;
  if (done) return;
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);  // 1 us instead of Linux's default 50 us
  done = true;
}

namespace {
thread_local const std::atomic<int>* computing = nullptr;
}  // namespace

void poll_while_idle(const std::atomic<int>* busy) { computing = busy; }

void wait_all(std::span<MPI_Request> requests, const std::atomic<bool>* cancel) {
  if (requests.empty()) return;
  precise_sleeps();
  const double since = MPI_Wtime();
  for (int polls = 0;; ++polls) {
    int done = 0;
    check_mpi(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
    if (done) return;
    if (cancel && cancel->load()) throw RuntimeError("cancelled: another thread of this rank failed");
    const bool idle = computing && computing->load(std::memory_order_relaxed) == 0;
    if (polls < 200 || (idle && MPI_Wtime() - since < kIdlePolling)) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
}

}  // namespace dtsim::real
