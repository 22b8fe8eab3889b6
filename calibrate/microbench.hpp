// Microbenchmarks of `dtsim calibrate --backend cpu`, run by every rank of MPI_COMM_WORLD
// together, through the same code paths dtsim-real's cpu backend uses (so the profile describes
// what a real run will see): GEMMs cut as real/gemm.hpp cuts ops, point-to-point with
// MPI_Isend/MPI_Irecv and real::wait_all, collectives with the schedules of models/collectives/
// executed by real::run_schedule, memory copies, and compression kernels.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <mpi.h>

#include "core/calibration/calibration.hpp"
#include "models/collectives/collective.hpp"
#include "real/values.hpp"

namespace dtsim::calib {

// One ring AllReduce of a buffer of `bytes` on `comm` (models/collectives' schedule, run by
// real::run_schedule), filled before and checked after as dtsim-real's comm stream does; run() times
// the schedule alone. Collective over `comm`. Throws RuntimeError on a wrong result.
class RingAllReduce {
 public:
  RingAllReduce(double bytes, MPI_Comm comm);
  double bytes() const { return static_cast<double>(buf_.size()) * sizeof(float); }
  double run();

 private:
  MPI_Comm comm_;
  GroupShape shape_;
  Schedule schedule_;
  real::ChunkLayout layout_;
  std::vector<float> buf_;
  int me_ = 0;
  int salt_ = 0;
};

struct BenchOptions {
  bool quick = false;          // fewer sizes and shorter repeats (CI)
  double min_seconds = 0.004;  // per size: repeat until this much time has passed (at least 3 times)
  int max_repeats = 200;
};

// Every rank runs GEMMs of each size at once (as dtsim-real's ranks compute at once); x = FLOPs
// of one op; seconds = with a core per rank, the slowest rank's mean over repeats; with ranks
// sharing cores, the median over repeats averaged over ranks. Returned on every rank.
std::vector<Sample> bench_gemm(const BenchOptions& o, MPI_Comm comm);

// Every rank runs dtsim-real's SGD step (w -= lr g over float arrays) at once; before each repeat
// the caches are swept and g written (as a run finds them: w cold, g just written by the
// collective); x = bytes read and
// written (12 per element), seconds averaged over ranks. Returned on every rank.
std::vector<Sample> bench_memory(const BenchOptions& o, MPI_Comm comm);

// dtsim-real's bookkeeping around a collective (real/values.hpp): filling the input buffer (the
// backward pass's gradients) and checking the output, every rank at once, on buffers of x bytes
// swept from the caches before each repeat; seconds averaged over ranks. The executor runs this on the comm stream
// between collectives, so it is on a synchronous iteration's critical path. Returned on every rank.
std::vector<Sample> bench_collective_buffer(const BenchOptions& o, MPI_Comm comm);

// The same loops with each rank's data left in the last-level cache, for plans whose model state
// fits it (models/cost/cost_model.hpp: data_in_cache), with only a core's own cache (L2) swept before
// each repeat: the SGD step (g still written before each) and, when every rank shares one host,
// ring AllReduces on one buffer (their rounds, S / n each way in time / (2 (n - 1)), fit
// same_host_in_cache). Sizes up to each rank's share of `llc_bytes` (half of it for the AllReduce);
// nothing when that share is unknown or under 1 MiB. A 1 MB AllReduce of 2 ranks took 96 to 112 us
// here on one buffer back to back, 89 to 128 us in three calibrations with the L2 swept between (as
// here), 190 us with the caches swept as bench_collectives does. Returned on every rank (rounds: the
// slowest rank's median).
struct InCacheSamples {
  std::vector<Sample> sgd_step;
  std::vector<Sample> rounds;
};
InCacheSamples bench_in_cache(const BenchOptions& o, MPI_Comm comm, double llc_bytes);

// dtsim-real's bookkeeping before a worker's uncompressed push (real::fill_contributions: this
// iteration's gradients written into the pushed range), every rank at once, on buffers of x
// bytes swept from the caches first (a run last wrote them an iteration ago); seconds averaged
// over ranks. The posted stream does it before each MPI_Isend, one push after the other.
// Returned on every rank.
std::vector<Sample> bench_push_buffer(const BenchOptions& o, MPI_Comm comm);

// Exchanges between rank 0 and one partner per link class (same_host: the first other rank on
// rank 0's host; cross_host: the first rank on another host): both send x bytes to each other at
// once with MPI_Isend/MPI_Irecv and wait with real::wait_all, as a collective's round does in
// dtsim-real (a link fitted to one-way ping-pongs predicted a 2 MiB ring AllReduce 40x too
// fast here);
// seconds = the median exchange. Classes without a partner are absent. Returned on rank 0.
std::map<std::string, std::vector<Sample>> bench_exchange(const BenchOptions& o, MPI_Comm comm);

// Ring AllReduce, ReduceScatter and AllGather over all ranks of `comm` (models/collectives'
// schedules, as dtsim-real runs them), reported like nccl-tests: time (the slowest rank's median),
// algbw = S / time, busbw. Returned on rank 0.
std::vector<CollectiveSample> bench_collectives(const BenchOptions& o, MPI_Comm comm);

// Compression kernels on rank 0: dtsim-real's Codec::compress (real/codec.hpp) of every method with
// a calibration kernel (compression_kernels(): fp16 and bf16 casts, int8, QSGD with 127 levels, top-k
// and random-k of 1 %, sign) without error feedback, on fp32 gradients; x = gradient bytes in.
// Returned on rank 0.
std::map<std::string, std::vector<Sample>> bench_compression(const BenchOptions& o, MPI_Comm comm);

// Compute and communication at once (calibrate/contention_bench.cpp): on every rank a GEMM op (on
// the main thread) about twice as long as a 4 MB ring AllReduce (on a thread of its own, as
// dtsim-real's comm stream), measured alone, the GEMM beside back-to-back AllReduces, the AllReduce
// beside back-to-back GEMM ops, and both started together; each the slowest rank's, in 15
// interleaved rounds (5 with --quick). Collective over `comm`; returned on every rank.
ContentionSample bench_contention(const BenchOptions& o, MPI_Comm comm);

}  // namespace dtsim::calib
