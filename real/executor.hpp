// What the real backends share: their options, the checks they report, and the interface the
// launcher drives. A RealExecutor runs one rank of the Plan (this process's) and reports its
// ops to the Observer; the launcher gathers every rank's records on rank 0.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <mpi.h>

#include "core/run/observer.hpp"
#include "real/gemm.hpp"
#include "real/mpi_world.hpp"

namespace dtsim::real {

class HostComm;

struct RealOptions {
  bool mpi_collectives = false;     // cpu: the MPI library's collectives instead of the schedules
  float learning_rate = 1.0f / 16;  // SGD on the summed gradient; a power of two keeps it exact
  std::int64_t max_gemm_dim = 0;    // matrices at most this side (bigger ops repeat products); 0: the backend's
};

// One collective (or a server's aggregation) checked on one rank, over all iterations.
struct CheckRecord {
  std::string op;    // the op's label
  std::string kind;  // "allreduce", ..., "aggregate"
  std::string algorithm;
  std::int64_t elements = 0;    // per iteration
  std::int64_t checked = 0;     // elements checked, all iterations
  std::int64_t mismatched = 0;  // elements that did not hold the exact result
  int iterations = 0;
  double checksum = 0;  // the last iteration's sum of the checked elements
  double expected = 0;  // and what it should be
};

// This rank's share of the results beyond the op records.
struct RankReport {
  std::vector<CheckRecord> checks;
  std::uint64_t model_hash = 0;            // FNV-1a of a worker's parameters after the run (0 on servers)
  int replica_group = -1;                  // whose parameters must equal this rank's (binding.hpp replica_group)
  bool agreement_required = true;          // false where each rank steps its own shard (ZeRO)
  double memory_peak = 0;                  // the plan buffers' high-water mark, bytes (memory_meter.hpp)
  std::array<double, 4> memory_at_peak{};  // by MemoryUse: parameters, gradients, activations, communication
  double flops_planned = 0;
  double flops_executed = 0;
  double elements_sent = 0;    // floats this rank sent
  double flops_straggler = 0;  // extra FLOPs run to make this rank as slow as Plan::slowdown says
  std::vector<int> staleness;  // an asynchronous server rank's updates: versions it missed (measured)
};

class RealExecutor : public Executor {
 public:
  // After run(): this rank's checks and counters.
  virtual RankReport report() const = 0;
  // What this rank computes on: "cpu core 3", "cuda:0 NVIDIA H100 80GB HBM3".
  virtual std::string device() const = 0;
};

// Thrown when a backend cannot run here (no GPU, not built); the launcher exits with code 3.
class BackendUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Each executor sets up its buffers and communicators, then aligns the ranks' clocks (time 0 is
// the moment every rank is ready to start) before the first op.
std::unique_ptr<RealExecutor> make_cpu_executor(int rank, const RealOptions& options);
// Collective over `comm` (MPI processes, or the threads of the launcher-free mode): the rank's GPU
// is its index on its host. Throws BackendUnavailable without a device or when dtsim was built
// without CUDA.
std::unique_ptr<RealExecutor> make_cuda_executor(HostComm& comm, const RealOptions& options);

// The GPUs this process sees (cudaGetDeviceCount), for the launcher-free mode's default --gpus.
// Throws BackendUnavailable without one, or when dtsim was built without CUDA.
int visible_gpus();

}  // namespace dtsim::real
