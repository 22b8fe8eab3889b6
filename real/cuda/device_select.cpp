// Picking the local rank's GPU, or saying why there is none.
#include "real/cuda/device_select.hpp"

#include <fmt/format.h>

#include "real/cuda/cuda_check.hpp"
#include "real/executor.hpp"

namespace dtsim::real::cuda {

SelectedDevice select_device(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int local = 0, on_host = 1;
  MPI_Comm_rank(node, &local);
  MPI_Comm_size(node, &on_host);
  MPI_Comm_free(&node);
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0) {
    throw BackendUnavailable(
        fmt::format("no CUDA device on this host ({}); the cuda backend needs one GPU per rank, "
                    "--backend cpu runs without one",
                    rc != cudaSuccess ? cudaGetErrorString(rc) : "0 devices"));
  }
  if (on_host > count) {
    throw BackendUnavailable(
        fmt::format("{} ranks on this host but {} CUDA device(s); the cuda backend needs one "
                    "GPU per rank (start at most {} ranks per host)",
                    on_host, count, count));
  }
  SelectedDevice d;
  d.index = local;
  check_cuda(cudaSetDevice(d.index), "cudaSetDevice");
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, d.index), "cudaGetDeviceProperties");
  d.name = fmt::format("cuda:{} {}", d.index, prop.name);
  return d;
}

}  // namespace dtsim::real::cuda
