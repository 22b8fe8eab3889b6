// The cuda backend's BenchSuite: one GPU per rank (real/cuda/device_select.hpp), timed with CUDA
// events on one stream, median of repeats, through the code paths dtsim-real --backend cuda runs:
// cuBLAS GEMMs cut as real/gemm.hpp cuts ops (real/cuda/cuda_gemm.hpp) per dtype, the SGD step
// and the collective buffers' fill and check (real/cuda/kernels.hpp), ncclSend/ncclRecv exchanges
// and NCCL collectives on a world communicator, the compression kernels of compress_kernels.cu.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <functional>

#include "calibrate/bench_suite.hpp"
#include "real/host_comm.hpp"

namespace dtsim::calib::cuda {

// A device allocation, zeroed, freed with its owner.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* floats() const { return static_cast<float*>(p_); }
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

class CudaBench : public BenchSuite {
 public:
  explicit CudaBench(real::HostComm& comm);  // collective; throws BackendUnavailable without a device
  ~CudaBench() override;
  CudaBench(const CudaBench&) = delete;
  CudaBench& operator=(const CudaBench&) = delete;

  std::string device() const override { return device_name_; }
  std::map<std::string, std::vector<Sample>> gemm(const BenchOptions& o) override;
  std::vector<Sample> memory(const BenchOptions& o) override;
  std::vector<Sample> collective_buffer(const BenchOptions& o) override;
  std::map<std::string, std::vector<Sample>> exchange(const BenchOptions& o) override;
  std::vector<CollectiveSample> collectives(const BenchOptions& o) override;
  std::map<std::string, std::vector<Sample>> compression(const BenchOptions& o) override;
  std::optional<ContentionSample> contention(const BenchOptions& o) override;  // cuda_bench_contention.cpp

 private:
  // Seconds between two events around what `enqueue` puts on the stream (waits for it).
  double elapsed(const std::function<void()>& enqueue);
  // elapsed() until min_seconds of it have passed (at least 3 times, at most max_repeats), after
  // one warm-up; `before` is enqueued untimed ahead of each; the median.
  double timed(const BenchOptions& o, const std::function<void()>& enqueue, const std::function<void()>& before = {});
  ncclComm_t nccl();  // the world communicator, made on first use (collective)
  // Seconds of each of `repeats` collectives enqueued back to back (fill, timed op, check).
  std::vector<double> run_collective(const std::string& kind, std::size_t elements, int repeats, float* buf);

  real::HostComm& comm_;
  int rank_ = 0, size_ = 1;
  std::string device_name_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  ncclComm_t nccl_ = nullptr;
  std::size_t l2_bytes_ = 0;
};

}  // namespace dtsim::calib::cuda
