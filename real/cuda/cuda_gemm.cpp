// cuBLAS GEMMs (cublasGemmEx) of an op's FLOPs, cut as real/gemm.hpp cuts them.
#include "real/cuda/cuda_gemm.hpp"

#include "real/cuda/cuda_check.hpp"
#include "real/gemm.hpp"

namespace dtsim::real::cuda {
namespace {

cudaDataType_t data_type(Dtype d) {
  switch (d) {
    case Dtype::Fp16: return CUDA_R_16F;
    case Dtype::Bf16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

}  // namespace

double enqueue_gemms(cublasHandle_t handle, double flops, Dtype dtype, std::int64_t side, const void* a, const void* b,
                     void* c) {
  const cudaDataType_t type = data_type(dtype);
  // fp32 accumulation throughout; tf32 lets cuBLAS use tensor cores on fp32 inputs.
  const cublasComputeType_t compute = dtype == Dtype::Tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const float one = 1.0f, zero = 0.0f;
  const std::vector<GemmShape> shapes = gemm_shapes(flops, side, kGemmAlignCuda);
  for (const GemmShape& g : shapes) {
    for (std::int64_t i = 0; i < g.repeat; ++i) {
      check_cublas(
          cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(g.m), static_cast<int>(g.n),
                       static_cast<int>(g.k), &one, a, type, static_cast<int>(g.m), b, type, static_cast<int>(g.k),
                       &zero, c, type, static_cast<int>(g.m), compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
    }
  }
  return gemm_flops(shapes);
}

}  // namespace dtsim::real::cuda
