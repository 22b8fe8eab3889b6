// The cuda BenchSuite's setup (device, stream, events, cuBLAS, NCCL) and its event timing.
#include "calibrate/cuda/cuda_bench.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "calibrate/bench_util.hpp"
#include "real/cuda/cuda_check.hpp"
#include "real/cuda/device_select.hpp"
#include "real/executor.hpp"

namespace dtsim::calib::cuda {

using real::cuda::check_cublas;
using real::cuda::check_cuda;
using real::cuda::check_nccl;

DeviceBuffer::DeviceBuffer(std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 16);
  check_cuda(cudaMalloc(&p_, bytes), "cudaMalloc");
  check_cuda(cudaMemset(p_, 0, bytes), "cudaMemset");
  // The memset runs on the legacy stream, which the bench's non-blocking stream does not wait for.
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

DeviceBuffer::~DeviceBuffer() { cudaFree(p_); }

CudaBench::CudaBench(real::HostComm& comm) : comm_(comm), rank_(comm.rank()), size_(comm.size()) {
  const real::cuda::SelectedDevice d = real::cuda::select_device(comm);
  device_name_ = d.name;
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, d.index), "cudaGetDeviceProperties");
  l2_bytes_ = static_cast<std::size_t>(std::max(prop.l2CacheSize, 0));
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  check_cublas(cublasCreate(&cublas_), "cublasCreate");
  check_cublas(cublasSetStream(cublas_, stream_), "cublasSetStream");
}

CudaBench::~CudaBench() {
  if (nccl_) ncclCommDestroy(nccl_);
  if (cublas_) cublasDestroy(cublas_);
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
  if (stream_) cudaStreamDestroy(stream_);
}

double CudaBench::elapsed(const std::function<void()>& enqueue) {
  check_cuda(cudaEventRecord(start_, stream_), "cudaEventRecord");
  enqueue();
  check_cuda(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return ms * 1e-3;
}

double CudaBench::timed(const BenchOptions& o, const std::function<void()>& enqueue,
                        const std::function<void()>& before) {
  elapsed(enqueue);  // warm-up (cuBLAS heuristics, NCCL connections, first-touch of pages)
  std::vector<double> times;
  double total = 0;
  while (times.size() < 3 || (total < o.min_seconds && static_cast<int>(times.size()) < o.max_repeats)) {
    if (before) before();  // enqueued ahead of the start event: untimed
    times.push_back(elapsed(enqueue));
    total += times.back();
  }
  return median(times);
}

ncclComm_t CudaBench::nccl() {
  if (!nccl_) {
    ncclUniqueId id{};
    if (rank_ == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    comm_.broadcast_value(id, 0);
    check_nccl(ncclCommInitRank(&nccl_, size_, id, rank_), "ncclCommInitRank");
  }
  return nccl_;
}

}  // namespace dtsim::calib::cuda

namespace dtsim::calib {

std::unique_ptr<BenchSuite> make_cuda_bench(real::HostComm& comm) {
  // Every rank stops when one has no device (else its peers would wait for it in NCCL's setup),
  // with the reason of the first such rank.
  std::unique_ptr<BenchSuite> bench;
  std::string why;
  try {
    bench = std::make_unique<cuda::CudaBench>(comm);
  } catch (const real::BackendUnavailable& e) {
    why = e.what();
  }
  why = real::first_failure(comm, why);
  if (!why.empty()) throw real::BackendUnavailable(why);
  return bench;
}

}  // namespace dtsim::calib
