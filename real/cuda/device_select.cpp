// Picking the local rank's GPU, or saying why there is none.
#include "real/cuda/device_select.hpp"

#include <fmt/format.h>

#include "real/cuda/cuda_check.hpp"
#include "real/executor.hpp"

namespace dtsim::real {

int visible_gpus() {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0) {
    throw BackendUnavailable(
        fmt::format("no CUDA device on this host ({}); the cuda backend needs one GPU per rank, "
                    "--backend cpu runs without one",
                    rc != cudaSuccess ? cudaGetErrorString(rc) : "0 devices"));
  }
  return count;
}

}  // namespace dtsim::real

namespace dtsim::real::cuda {

SelectedDevice select_device(const HostComm& comm) {
  const int count = visible_gpus();
  if (comm.local_size() > count) {
    throw BackendUnavailable(
        fmt::format("{} ranks on this host but {} CUDA device(s); the cuda backend needs one "
                    "GPU per rank (start at most {} ranks per host)",
                    comm.local_size(), count, count));
  }
  SelectedDevice d;
  d.index = comm.local_rank();
  check_cuda(cudaSetDevice(d.index), "cudaSetDevice");
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, d.index), "cudaGetDeviceProperties");
  d.name = fmt::format("cuda:{} {}", d.index, prop.name);
  return d;
}

}  // namespace dtsim::real::cuda
