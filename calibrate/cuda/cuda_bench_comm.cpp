// The cuda microbenchmarks between GPUs: ncclSend/ncclRecv exchanges per link class and NCCL
// AllReduce, ReduceScatter and AllGather reported like nccl-tests, as dtsim-real's cuda executor
// enqueues them (real/cuda/cuda_ops.cpp: in place, fp32, the sum checked on the device).
#include <algorithm>

#include "calibrate/bench_util.hpp"
#include "calibrate/cuda/cuda_bench.hpp"
#include "core/base/error.hpp"
#include "real/cuda/cuda_check.hpp"
#include "real/cuda/kernels.hpp"

namespace dtsim::calib::cuda {

using real::cuda::check_cuda;
using real::cuda::check_nccl;

std::map<std::string, std::vector<Sample>> CudaBench::exchange(const BenchOptions& o) {
  const std::map<std::string, int> partner = link_partners(all_hosts(comm_));
  ncclComm_t comm = nccl();
  const std::vector<double> sizes = o.quick ? geometric(8, 4 << 20, 8) : geometric(8, 64 << 20, 2);
  const DeviceBuffer buf(static_cast<std::size_t>(sizes.back()) + 4), back(static_cast<std::size_t>(sizes.back()) + 4);
  std::map<std::string, std::vector<Sample>> out;
  for (const auto& [cls, peer] : partner) {
    comm_.barrier();
    const bool pair = rank_ == 0 || rank_ == peer;  // the others only hear how often the pair repeats
    const int other = rank_ == 0 ? peer : 0;
    std::size_t count = static_cast<std::size_t>(sizes.back() / 4);
    // Both send to each other at once and wait for both, as a ring round or a push and pull.
    const auto exchange_once = [&] {
      check_nccl(ncclGroupStart(), "ncclGroupStart");
      check_nccl(ncclSend(buf.floats(), count, ncclFloat, other, comm, stream_), "ncclSend");
      check_nccl(ncclRecv(back.floats(), count, ncclFloat, other, comm, stream_), "ncclRecv");
      check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    };
    if (pair) elapsed(exchange_once);  // NCCL connects a pair on its first transfer: not part of any size's time
    for (double bytes : sizes) {
      count = static_cast<std::size_t>(std::max(1.0, bytes / 4));
      // Both sides run the same number of exchanges: rank 0 decides and tells its partner.
      int repeats = 3;
      const double once = pair ? std::max(elapsed(exchange_once), 1e-7) : 0.0;
      if (rank_ == 0) repeats = std::clamp(static_cast<int>(o.min_seconds / once), 3, o.max_repeats);
      comm_.broadcast_value(repeats, 0);
      if (!pair) continue;
      std::vector<double> times;
      for (int i = 0; i < repeats; ++i) times.push_back(elapsed(exchange_once));
      if (rank_ == 0) out[cls].push_back(Sample{static_cast<double>(count) * 4, median(times)});
    }
  }
  comm_.barrier();
  return out;
}

std::vector<double> CudaBench::run_collective(const std::string& kind, std::size_t n, int repeats, float* buf) {
  ncclComm_t comm = nccl();
  const std::size_t block = n / static_cast<std::size_t>(size_);
  const bool allreduce = kind == "allreduce";
  const DeviceBuffer check(sizeof(real::cuda::DeviceCheck));
  auto* device_check = static_cast<real::cuda::DeviceCheck*>(check.get());
  std::vector<cudaEvent_t> events(2 * static_cast<std::size_t>(repeats));
  for (cudaEvent_t& e : events) check_cuda(cudaEventCreate(&e), "cudaEventCreate");
  // All repeats enqueued back to back, as a run enqueues its iterations; no barrier between them.
  for (int i = 0; i < repeats; ++i) {
    if (allreduce) real::cuda::fill_contribution(buf, static_cast<std::int64_t>(n), 0, rank_, i, stream_);
    check_cuda(cudaEventRecord(events[2 * i], stream_), "cudaEventRecord");
    if (allreduce) {
      check_nccl(ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, stream_), "ncclAllReduce");
    } else if (kind == "reduce_scatter") {
      check_nccl(ncclReduceScatter(buf, buf + rank_ * block, block, ncclFloat, ncclSum, comm, stream_),
                 "ncclReduceScatter");
    } else {
      check_nccl(ncclAllGather(buf + rank_ * block, buf, block, ncclFloat, comm, stream_), "ncclAllGather");
    }
    check_cuda(cudaEventRecord(events[2 * i + 1], stream_), "cudaEventRecord");
    if (allreduce) real::cuda::check_sum(buf, static_cast<std::int64_t>(n), 0, size_, i, device_check, stream_);
  }
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]), "cudaEventElapsedTime");
    times.push_back(ms * 1e-3);
  }
  for (cudaEvent_t e : events) cudaEventDestroy(e);
  real::cuda::DeviceCheck host{};
  check_cuda(cudaMemcpy(&host, device_check, sizeof(host), cudaMemcpyDeviceToHost), "cudaMemcpy");
  if (host.mismatched != 0) throw RuntimeError("calibration collective: NCCL's AllReduce gave a wrong sum");
  return times;
}

std::vector<CollectiveSample> CudaBench::collectives(const BenchOptions& o) {
  // AllReduce densely (its rounds calibrate the same_host link on one host), ReduceScatter and
  // AllGather (S = the gathered buffer) more sparsely, as the cpu path.
  std::vector<std::pair<std::string, double>> runs;
  for (double b : o.quick ? geometric(4096, 4 << 20, 4) : geometric(1024, 256 << 20, 2))
    runs.emplace_back("allreduce", b);
  for (const char* kind : {"reduce_scatter", "allgather"}) {
    for (double b : o.quick ? geometric(4096, 4 << 20, 32) : geometric(4096, 256 << 20, 8)) runs.emplace_back(kind, b);
  }
  double largest = 0;
  for (const auto& r : runs) largest = std::max(largest, r.second);
  const DeviceBuffer buf(static_cast<std::size_t>(largest) + static_cast<std::size_t>(size_) * 4);
  std::vector<CollectiveSample> out;
  for (const auto& [kind, bytes] : runs) {
    // Whole blocks per rank, as NCCL's scatter and gather need.
    const std::size_t n =
        std::max<std::size_t>(1, static_cast<std::size_t>(bytes / 4) / static_cast<std::size_t>(size_)) *
        static_cast<std::size_t>(size_);
    // A warm-up (NCCL connects a communicator's channels on their first use), then every rank runs
    // rank 0's number of repeats.
    run_collective(kind, n, 1, buf.floats());
    int repeats = 0;
    const double once = run_collective(kind, n, 1, buf.floats()).front();
    if (rank_ == 0) repeats = std::clamp(static_cast<int>(o.min_seconds / std::max(once, 1e-7)), 3, o.max_repeats);
    comm_.broadcast_value(repeats, 0);
    comm_.barrier();
    const double t =
        comm_.allreduce_value(median(run_collective(kind, n, repeats, buf.floats())), real::HostComm::Reduce::Max);
    const double s = static_cast<double>(n) * 4;
    out.push_back(CollectiveSample{kind, "ring", size_, s, t, s / t, s / t * busbw_factor(kind, size_), 0});
  }
  return rank_ == 0 ? out : std::vector<CollectiveSample>{};
}

}  // namespace dtsim::calib::cuda
