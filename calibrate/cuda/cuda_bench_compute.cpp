// The cuda microbenchmarks on one GPU: cuBLAS GEMMs per dtype, the SGD step, the collective
// buffers' fill and check, and the compression kernels. Sizes grow geometrically (fewer with
// --quick); GPU sizes reach further than the cpu ones, to where the device saturates.
#include <cstdint>

#include "calibrate/bench_util.hpp"
#include "calibrate/cuda/cuda_bench.hpp"
#include "core/base/error.hpp"
#include "models/compression/method.hpp"
#include "real/cuda/compress_kernels.hpp"
#include "real/cuda/cuda_check.hpp"
#include "real/cuda/cuda_gemm.hpp"
#include "real/cuda/kernels.hpp"
#include "real/executor.hpp"

namespace dtsim::calib::cuda {

using real::cuda::check_cuda;

std::map<std::string, std::vector<Sample>> CudaBench::gemm(const BenchOptions& o) {
  const std::int64_t side = real::kMaxGemmDimCuda;  // as dtsim-real cuts ops
  // Operands filled as the executor's (real/cuda/cuda_executor.cpp).
  const DeviceBuffer a(static_cast<std::size_t>(side * side * 4)), b(static_cast<std::size_t>(side * side * 4));
  const DeviceBuffer c(static_cast<std::size_t>(side * side * 4));
  real::cuda::fill_operand(a.get(), side * side * 4, stream_);
  real::cuda::fill_operand(b.get(), side * side * 4, stream_);
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  std::map<std::string, std::vector<Sample>> out;
  for (Dtype dtype : {Dtype::Fp32, Dtype::Tf32, Dtype::Fp16, Dtype::Bf16}) {
    for (double flops : o.quick ? geometric(1e4, 1e10, 10) : geometric(1e3, 1e12, 4)) {
      double executed = 0;
      comm_.barrier();
      double t = timed(
          o, [&] { executed = real::cuda::enqueue_gemms(cublas_, flops, dtype, side, a.get(), b.get(), c.get()); });
      t = comm_.allreduce_value(t, real::HostComm::Reduce::Sum);
      if (executed > 0) out[std::string(dtype_name(dtype))].push_back(Sample{executed, t / size_});
    }
  }
  return out;
}

std::vector<Sample> CudaBench::memory(const BenchOptions& o) {
  // A run's SGD step finds its parameters out of L2 (the GEMMs and collectives went through it):
  // before each repeat, twice L2 is overwritten, untimed.
  const DeviceBuffer junk(2 * l2_bytes_);
  std::vector<Sample> out;
  for (double bytes : o.quick ? geometric(96 << 10, 24 << 20, 4) : geometric(96 << 10, 1536 << 20, 2)) {
    const auto n = static_cast<std::int64_t>(bytes / 12);
    const DeviceBuffer w(static_cast<std::size_t>(n) * 4), g(static_cast<std::size_t>(n) * 4);
    comm_.barrier();
    double t = timed(
        o, [&] { real::cuda::sgd_step(w.floats(), g.floats(), n, real::RealOptions{}.learning_rate, stream_); },
        [&] { check_cuda(cudaMemsetAsync(junk.get(), 1, 2 * l2_bytes_, stream_), "cudaMemsetAsync"); });
    t = comm_.allreduce_value(t, real::HostComm::Reduce::Sum);
    out.push_back(Sample{12.0 * static_cast<double>(n), t / size_});
  }
  return out;
}

std::vector<Sample> CudaBench::collective_buffer(const BenchOptions& o) {
  // The executor fills an AllReduce's input and checks its sum on the collective's stream, so the
  // work is on a synchronous iteration's critical path. Rank 0's contribution checked as a sum
  // over one rank: the same kernels and cost, and a result this rank can check alone.
  const DeviceBuffer check(sizeof(real::cuda::DeviceCheck));
  auto* device_check = static_cast<real::cuda::DeviceCheck*>(check.get());
  std::vector<Sample> out;
  std::int64_t total = 0;
  for (double bytes : o.quick ? geometric(4096, 16 << 20, 4) : geometric(4096, 256 << 20, 2)) {
    const auto n = static_cast<std::int64_t>(bytes / 4);
    const DeviceBuffer buf(static_cast<std::size_t>(n) * 4);
    int salt = 0;
    comm_.barrier();
    double t = timed(o, [&] {
      real::cuda::fill_contribution(buf.floats(), n, 0, 0, ++salt, stream_);
      real::cuda::check_sum(buf.floats(), n, 0, 1, salt, device_check, stream_);
      total += n;
    });
    t = comm_.allreduce_value(t, real::HostComm::Reduce::Sum);
    out.push_back(Sample{static_cast<double>(n) * 4, t / size_});
  }
  real::cuda::DeviceCheck host{};
  check_cuda(cudaMemcpy(&host, device_check, sizeof(host), cudaMemcpyDeviceToHost), "cudaMemcpy");
  if (host.mismatched != 0 || static_cast<std::int64_t>(host.checked) != total) {
    throw RuntimeError("calibration collective buffer: the device check found wrong or skipped elements");
  }
  return out;
}

std::map<std::string, std::vector<Sample>> CudaBench::compression(const BenchOptions& o) {
  std::map<std::string, std::vector<Sample>> out;
  if (rank_ == 0) {
    for (double bytes : o.quick ? geometric(64 << 10, 4 << 20, 4) : geometric(64 << 10, 256 << 20, 4)) {
      const auto n = static_cast<std::int64_t>(bytes / 4);
      const std::int64_t k = std::max<std::int64_t>(1, n / 100);  // top-k of 1 %, as the cpu path
      const DeviceBuffer g(static_cast<std::size_t>(n) * 4), payload(static_cast<std::size_t>(n) * 4 + 64);
      const DeviceBuffer scale(sizeof(float));
      real::cuda::fill_contribution(g.floats(), n, 0, 0, 1, stream_);
      auto* q = static_cast<std::int8_t*>(payload.get());
      const auto add = [&](CompressionMethod method, const std::function<void()>& run) {
        out[std::string(method_traits(method).calibration_kernel)].push_back(
            Sample{static_cast<double>(n) * 4, timed(o, run)});
      };
      add(CompressionMethod::TopK, [&] { real::cuda::topk_pairs(g.floats(), n, k, payload.floats(), stream_); });
      add(CompressionMethod::Int8, [&] { real::cuda::quantize_int8(g.floats(), n, q, scale.floats(), stream_); });
      add(CompressionMethod::Sign, [&] { real::cuda::sign_pack(g.floats(), n, payload.floats(), stream_); });
      add(CompressionMethod::Fp16, [&] { real::cuda::pack_half(g.floats(), n, false, payload.floats(), stream_); });
      add(CompressionMethod::Bf16, [&] { real::cuda::pack_half(g.floats(), n, true, payload.floats(), stream_); });
    }
  }
  comm_.barrier();
  return out;
}

}  // namespace dtsim::calib::cuda
