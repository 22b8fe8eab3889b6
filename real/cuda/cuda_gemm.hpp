// The cuda backend's compute: an op of F FLOPs cut into cuBLAS GEMMs as real/gemm.hpp cuts it
// (at most side x side), in the op's dtype with fp32 accumulation (tf32: tensor cores on fp32
// inputs). Shared by the executor and `dtsim calibrate --backend cuda`, so the profile times
// exactly the GEMMs a run enqueues.
#pragma once

#include <cublas_v2.h>

#include <cstdint>

#include "core/base/dtype.hpp"

namespace dtsim::real::cuda {

// Enqueues the GEMMs of `flops` on the handle's stream (a, b, c: side x side, of the dtype's
// element size or more) and returns the FLOPs they execute. Throws RuntimeError when cuBLAS fails.
double enqueue_gemms(cublasHandle_t handle, double flops, Dtype dtype, std::int64_t side, const void* a, const void* b,
                     void* c);

}  // namespace dtsim::real::cuda
