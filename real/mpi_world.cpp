// MPI start-up, clock alignment, polite waiting and gathering to rank 0.
#include "real/mpi_world.hpp"

#include <sys/prctl.h>

#include <chrono>
#include <limits>
#include <thread>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim::real {

namespace {

// Gathers every rank's count at rank 0 and fills the displacements for MPI_Gatherv; the total.
int gather_counts(int count, MPI_Comm comm, std::vector<int>& counts, std::vector<int>& displs) {
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    displs[i] = total;
    total += counts[i];
  }
  return total;
}

}  // namespace

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

std::vector<OpRecord> gather_records(const std::vector<OpRecord>& mine, MPI_Comm comm) {
  std::vector<double> packed;
  packed.reserve(mine.size() * 5);
  for (const auto& r : mine) {
    packed.insert(packed.end(), {static_cast<double>(r.rank), static_cast<double>(r.iteration),
                                 static_cast<double>(r.op), r.start, r.end});
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int count = static_cast<int>(packed.size());
  std::vector<int> counts(size), displs(size);
  const int total = gather_counts(count, comm, counts, displs);
  std::vector<double> all(rank == 0 ? static_cast<size_t>(total) : 0);
  MPI_Gatherv(packed.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0, comm);
  std::vector<OpRecord> out;
  for (size_t i = 0; i + 4 < all.size(); i += 5) {
    out.push_back(OpRecord{static_cast<int>(all[i]), static_cast<int>(all[i + 1]), static_cast<int>(all[i + 2]),
                           all[i + 3], all[i + 4]});
  }
  return out;
}

std::vector<std::string> gather_strings(const std::string& mine, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size);
  const int total = gather_counts(count, comm, counts, displs);
  std::string all(rank == 0 ? static_cast<size_t>(total) : 0, '\0');
  MPI_Gatherv(mine.data(), count, MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, 0, comm);
  std::vector<std::string> out;
  if (rank == 0) {
    for (int i = 0; i < size; ++i) out.push_back(all.substr(static_cast<size_t>(displs[i]), counts[i]));
  }
  return out;
}

}  // namespace dtsim::real
