// The microbenchmarks of `dtsim calibrate`, per backend behind one interface, so calibrate()
// runs, repeats and fits them alike: `cpu` (calibrate/microbench.hpp: Eigen, MPI schedules) and
// `cuda` (calibrate/cuda/: cuBLAS, NCCL, the cuda backend's kernels; a fallback that refuses with exit 3 when
// dtsim was built without CUDA). Every call is collective over the suite's communicator; what
// a call returns on rank 0 is what goes into the profile.
#pragma once

#include <mpi.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/microbench.hpp"
#include "core/calibration/calibration.hpp"
#include "real/host_comm.hpp"

namespace dtsim::calib {

class BenchSuite {
 public:
  virtual ~BenchSuite() = default;
  // What rank 0 computes on, for the profile's machine.device ("" on cpu).
  virtual std::string device() const = 0;
  // GEMM throughput by dtype (x = FLOPs of one op), every rank at once, averaged over ranks.
  virtual std::map<std::string, std::vector<Sample>> gemm(const BenchOptions& o) = 0;
  // The SGD step w -= lr g (x = 12 bytes per element), every rank at once.
  virtual std::vector<Sample> memory(const BenchOptions& o) = 0;
  // Filling a collective's input and checking its output (x = buffer bytes), every rank at once.
  virtual std::vector<Sample> collective_buffer(const BenchOptions& o) = 0;
  // Filling a worker's push buffer (x = bytes pushed), every rank at once; none where the backend's
  // pushes need no such work on the host (the engines then add none).
  virtual std::vector<Sample> push_buffer(const BenchOptions&) { return {}; }
  // The SGD step, the collective buffers and one host's ring rounds with each rank's data in the
  // last-level cache of `llc_bytes` (bench_in_cache); none where the backend's models never fit it.
  virtual InCacheSamples in_cache(const BenchOptions&, double /*llc_bytes*/) { return {}; }
  // Two-way exchanges between rank 0 and a partner per link class (x = bytes each way).
  virtual std::map<std::string, std::vector<Sample>> exchange(const BenchOptions& o) = 0;
  // AllReduce, ReduceScatter and AllGather over all ranks, like nccl-tests.
  virtual std::vector<CollectiveSample> collectives(const BenchOptions& o) = 0;
  // Compute beside communication on every rank (ContentionSample); none where the backend does not
  // measure it.
  virtual std::optional<ContentionSample> contention(const BenchOptions&) { return std::nullopt; }
  // Compression kernels on rank 0 by the cpu path's names (x = gradient bytes in).
  virtual std::map<std::string, std::vector<Sample>> compression(const BenchOptions& o) = 0;
};

std::unique_ptr<BenchSuite> make_cpu_bench(MPI_Comm comm);
// Collective over MPI processes or the threads of one process (--gpus). Throws
// real::BackendUnavailable without a CUDA device, with more ranks on a host
// than devices, or when dtsim was built without CUDA.
std::unique_ptr<BenchSuite> make_cuda_bench(real::HostComm& comm);

}  // namespace dtsim::calib
