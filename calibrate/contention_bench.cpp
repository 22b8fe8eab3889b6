// The cpu contention microbenchmark (calibrate/microbench.hpp): GEMMs on the rank's main thread and
// ring AllReduces on a thread of its own, as dtsim-real's compute and comm streams run them, alone,
// each beside a stream of the other, and together; five measurements per round, in interleaved
// rounds.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "calibrate/bench_util.hpp"
#include "calibrate/microbench.hpp"
#include "core/base/error.hpp"
#include "models/collectives/collective.hpp"
#include "real/cpu/collectives.hpp"
#include "real/cpu/eigen_gemms.hpp"
#include "real/gemm.hpp"
#include "real/values.hpp"

namespace dtsim::calib {
namespace {

// The slowest rank's seconds (a synchronous step waits for it).
double slowest(double seconds, MPI_Comm comm) {
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return seconds;
}

}  // namespace

ContentionSample bench_contention(const BenchOptions& o, MPI_Comm comm) {
  // The comm thread's communicator: collectives on it never meet the main thread's barriers.
  MPI_Comm side = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &side);
  // 4 MB: a DDP bucket's order of size, and the validation suite's overlap scenario's.
  RingAllReduce collective(4 << 20, side);
  real::EigenGemms gemms(real::kMaxGemmDim);
  const auto gemm_op = [&](const std::vector<real::GemmShape>& shapes) {
    const double t0 = MPI_Wtime();
    gemms.run(shapes);
    return MPI_Wtime() - t0;
  };
  // The GEMM op about twice the AllReduce, so that it outlasts it when both start together.
  collective.run();
  double c = 0;
  for (int i = 0; i < 3; ++i) c += collective.run() / 3;
  c = slowest(c, comm);
  const std::vector<real::GemmShape> unit = real::gemm_shapes(1e7, real::kMaxGemmDim);
  gemm_op(unit);
  const double unit_s = slowest(gemm_op(unit), comm);
  const double flops = std::clamp(1e7 * 2 * c / std::max(unit_s, 1e-6), 1e6, 1e10);
  const std::vector<real::GemmShape> shapes = real::gemm_shapes(flops, real::kMaxGemmDim);
  ContentionSample s;
  s.gemm_flops = real::gemm_flops(shapes);
  s.collective_bytes = collective.bytes();
  const double g = slowest(gemm_op(shapes), comm);
  // Beside a GEMM op: this many AllReduces back to back, agreed by every rank (each rank's comm
  // thread must run as many); three times the op's time alone, as contention stretches it.
  int beside = static_cast<int>(std::ceil(3 * g / std::max(c, 1e-7))) + 1;
  MPI_Bcast(&beside, 1, MPI_INT, 0, comm);

  const int rounds = o.quick ? 5 : 15;
  for (int r = 0; r < rounds; ++r) {
    MPI_Barrier(comm);
    s.gemm_alone.push_back(slowest(gemm_op(shapes), comm));
    MPI_Barrier(comm);
    s.collective_alone.push_back(slowest(collective.run(), comm));

    {  // the GEMM op while the comm thread runs AllReduces back to back
      MPI_Barrier(comm);
      std::atomic<bool> started{false};
      std::thread t([&] {
        started = true;
        for (int i = 0; i < beside; ++i) collective.run();
      });
      while (!started) std::this_thread::yield();
      const double dt = gemm_op(shapes);
      t.join();
      s.gemm_under_comm.push_back(slowest(dt, comm));
    }
    {  // one AllReduce on the comm thread while the main thread runs GEMM ops until it has ended
      MPI_Barrier(comm);
      std::atomic<bool> done{false};
      double dt = 0;
      std::thread t([&] {
        dt = collective.run();
        done = true;
      });
      while (!done) gemms.run(unit);
      t.join();
      s.collective_under_gemm.push_back(slowest(dt, comm));
    }
    {  // both started together, until both have ended
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      double comm_end = 0;
      std::thread t([&] {
        collective.run();
        comm_end = MPI_Wtime() - t0;
      });
      gemms.run(shapes);
      const double gemm_end = MPI_Wtime() - t0;
      t.join();
      s.both.push_back(slowest(std::max(gemm_end, comm_end), comm));
    }
  }
  MPI_Comm_free(&side);
  return s;
}

}  // namespace dtsim::calib
