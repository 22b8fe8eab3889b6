// Turning a failed CUDA, NCCL or cuBLAS call into a RuntimeError that names the call.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include "core/base/error.hpp"

namespace dtsim::real::cuda {

inline void check_cuda(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) throw RuntimeError(fmt::format("{} failed: {}", what, cudaGetErrorString(rc)));
}

inline void check_nccl(ncclResult_t rc, const char* what) {
  if (rc != ncclSuccess) throw RuntimeError(fmt::format("{} failed: {}", what, ncclGetErrorString(rc)));
}

inline void check_cublas(cublasStatus_t rc, const char* what) {
  if (rc != CUBLAS_STATUS_SUCCESS) throw RuntimeError(fmt::format("{} failed ({})", what, static_cast<int>(rc)));
}

}  // namespace dtsim::real::cuda
