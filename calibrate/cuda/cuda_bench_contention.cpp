// The cuda contention microbenchmark (ContentionSample): cuBLAS GEMMs on the compute stream and an
// NCCL AllReduce on a stream of its own, as dtsim-real's cuda executor runs them side by side:
// each alone, the GEMM op beside back-to-back AllReduces, the AllReduce beside back-to-back GEMM
// ops, and both started together, timed with events, in interleaved rounds. NCCL's collective
// kernels take SMs (one block per channel) and memory bandwidth from the GEMMs beside them; with
// one GPU the AllReduce is NCCL's single-rank copy, which takes neither, and calibrate runs this
// with 2 ranks or more only.
#include <algorithm>
#include <cmath>
#include <functional>

#include "calibrate/bench_util.hpp"
#include "calibrate/cuda/cuda_bench.hpp"
#include "real/cuda/cuda_check.hpp"
#include "real/cuda/cuda_gemm.hpp"
#include "real/cuda/kernels.hpp"
#include "real/gemm.hpp"

namespace dtsim::calib::cuda {

using real::cuda::check_cuda;
using real::cuda::check_nccl;

namespace {

// Events on the device's timeline: seconds between two of them (both recorded and done).
double between(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
  return ms * 1e-3;
}

}  // namespace

std::optional<ContentionSample> CudaBench::contention(const BenchOptions& o) {
  ncclComm_t comm = nccl();
  cudaStream_t side = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), "cudaStreamCreate");
  enum { kStart, kGemmEnd, kCommEnd, kCount };
  cudaEvent_t ev[kCount];
  for (cudaEvent_t& e : ev) check_cuda(cudaEventCreate(&e), "cudaEventCreate");
  // 64 MB: a data-parallel bucket's order of size (DDP's 25 MB, Megatron's 40M parameters).
  const std::size_t n = (std::size_t{64} << 20) / 4 / static_cast<std::size_t>(size_) * static_cast<std::size_t>(size_);
  const DeviceBuffer buf(n * 4);
  real::cuda::fill_contribution(buf.floats(), static_cast<std::int64_t>(n), 0, rank_, 1, side);
  const std::int64_t dim = real::kMaxGemmDimCuda;
  const DeviceBuffer a(static_cast<std::size_t>(dim * dim * 4)), b(static_cast<std::size_t>(dim * dim * 4));
  const DeviceBuffer c(static_cast<std::size_t>(dim * dim * 4));
  real::cuda::fill_operand(a.get(), dim * dim * 4, stream_);
  real::cuda::fill_operand(b.get(), dim * dim * 4, stream_);
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  cublasSetStream(cublas_, stream_);
  double flops = 0;
  const auto gemm = [&] { real::cuda::enqueue_gemms(cublas_, flops, Dtype::Bf16, dim, a.get(), b.get(), c.get()); };
  const auto allreduce = [&] {
    check_nccl(ncclAllReduce(buf.floats(), buf.floats(), n, ncclFloat, ncclSum, comm, side), "ncclAllReduce");
  };
  const auto slowest = [&](double s) { return comm_.allreduce_value(s, real::HostComm::Reduce::Max); };
  // One measurement: `compute` enqueued on the compute stream, `communicate` on the side stream,
  // both after a common start; seconds from the start to each stream's end, after every rank is
  // ready (a barrier, then all ranks enqueue).
  const auto measure = [&](const std::function<void()>& compute, const std::function<void()>& communicate) {
    comm_.barrier();
    check_cuda(cudaEventRecord(ev[kStart], stream_), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(side, ev[kStart], 0), "cudaStreamWaitEvent");
    if (compute) compute();
    check_cuda(cudaEventRecord(ev[kGemmEnd], stream_), "cudaEventRecord");
    if (communicate) communicate();
    check_cuda(cudaEventRecord(ev[kCommEnd], side), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(ev[kGemmEnd]), "cudaEventSynchronize");
    check_cuda(cudaEventSynchronize(ev[kCommEnd]), "cudaEventSynchronize");
    return std::pair{between(ev[kStart], ev[kGemmEnd]), between(ev[kStart], ev[kCommEnd])};
  };
  // The AllReduce alone, then a GEMM op about twice as long (bf16, the dtype of training).
  measure({}, allreduce);
  const double comm_s = slowest(measure({}, allreduce).second);
  flops = 1e12;
  measure(gemm, {});
  const double unit = slowest(measure(gemm, {}).first);
  flops = std::clamp(1e12 * 2 * comm_s / std::max(unit, 1e-7), 1e9, 1e14);
  measure(gemm, {});
  const double gemm_s = slowest(measure(gemm, {}).first);
  // Back to back beside the other: enough to cover it three times over, every rank the same count.
  int allreduces = static_cast<int>(std::ceil(3 * gemm_s / std::max(comm_s, 1e-7))) + 1;
  int gemms = static_cast<int>(std::ceil(3 * comm_s / std::max(gemm_s, 1e-7))) + 1;
  comm_.broadcast_value(allreduces, 0);
  comm_.broadcast_value(gemms, 0);

  ContentionSample s;
  s.gemm_flops = real::gemm_flops(real::gemm_shapes(flops, dim, real::kGemmAlignCuda));
  s.collective_bytes = static_cast<double>(n) * 4;
  const int rounds = o.quick ? 5 : 15;
  cudaEvent_t mark[2];
  for (cudaEvent_t& e : mark) check_cuda(cudaEventCreate(&e), "cudaEventCreate");
  for (int r = 0; r < rounds; ++r) {
    s.gemm_alone.push_back(slowest(measure(gemm, {}).first));
    s.collective_alone.push_back(slowest(measure({}, allreduce).second));
    // The GEMM op timed between marks on the compute stream, AllReduces running beside it.
    measure(
        [&] {
          check_cuda(cudaEventRecord(mark[0], stream_), "cudaEventRecord");
          gemm();
          check_cuda(cudaEventRecord(mark[1], stream_), "cudaEventRecord");
        },
        [&] {
          for (int i = 0; i < allreduces; ++i) allreduce();
        });
    s.gemm_under_comm.push_back(slowest(between(mark[0], mark[1])));
    // One AllReduce timed between marks on the side stream, GEMM ops running beside it.
    measure(
        [&] {
          for (int i = 0; i < gemms; ++i) gemm();
        },
        [&] {
          check_cuda(cudaEventRecord(mark[0], side), "cudaEventRecord");
          allreduce();
          check_cuda(cudaEventRecord(mark[1], side), "cudaEventRecord");
        });
    s.collective_under_gemm.push_back(slowest(between(mark[0], mark[1])));
    const auto [g, cm] = measure(gemm, allreduce);
    s.both.push_back(slowest(std::max(g, cm)));
  }
  for (cudaEvent_t e : mark) cudaEventDestroy(e);
  for (cudaEvent_t e : ev) cudaEventDestroy(e);
  cudaStreamDestroy(side);
  return s;
}

}  // namespace dtsim::calib::cuda
