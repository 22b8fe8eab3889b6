// PowerSGD on the device, with cuBLAS on M row-major (m x cols), i.e. M^T column-major with
// leading dimension cols: step 0 P = M Q; the middle step P orthogonalised (one Gram-Schmidt
// block), Q = M^T P; the last step D = P Q^T (the sum over workers), residual = x - D / workers.
// The summed Q stays in wire2 as the next warm start; P and Q are float ncclAllReduces.
#include <fmt/format.h>

#include "core/base/error.hpp"
#include "real/cuda/codecs/detail.hpp"
#include "real/cuda/compress_kernels.hpp"
#include "real/cuda/cuda_check.hpp"

namespace dtsim::real::cuda::codecs {
namespace {

class PowerSgd final : public DeviceCodec {
 public:
  void compress(DeviceUnit& u, int, const float* grad, cudaStream_t s) const override {
    add_residual(grad, u.residual, u.n, u.x, s);
    check_cublas(cublasSetStream(u.cublas, s), "cublasSetStream");
    check_cublas(cublasSgemm(u.cublas, CUBLAS_OP_T, CUBLAS_OP_N, u.m, u.r, u.cols, &one_, u.x, u.cols, u.wire2, u.cols,
                             &zero_, u.wire, u.m),
                 "cublasSgemm (P = M Q)");
  }
  void between(DeviceUnit& u, cudaStream_t s) const override {
    orthogonalise(u.wire, u.m, u.r, s);
    check_cublas(cublasSetStream(u.cublas, s), "cublasSetStream");
    check_cublas(cublasSgemm(u.cublas, CUBLAS_OP_N, CUBLAS_OP_N, u.cols, u.r, u.m, &one_, u.x, u.cols, u.wire, u.m,
                             &zero_, u.wire2, u.cols),
                 "cublasSgemm (Q = M^T P)");
  }
  void decompress(DeviceUnit& u, float* out, cudaStream_t s) const override {
    check_cublas(cublasSetStream(u.cublas, s), "cublasSetStream");
    check_cublas(cublasSgemm(u.cublas, CUBLAS_OP_N, CUBLAS_OP_T, u.cols, u.m, u.r, &one_, u.wire2, u.cols, u.wire, u.m,
                             &zero_, u.own, u.cols),
                 "cublasSgemm (P Q^T)");
    cudaMemcpyAsync(out, u.own, static_cast<size_t>(u.n) * 4, cudaMemcpyDeviceToDevice, s);
    if (u.residual) keep_residual(u.x, u.own, u.n, 1.0f / static_cast<float>(u.workers), u.residual, s);
  }
  // PowerSGD's factors are AllReduced, never pushed (the scenario refuses it with servers).
  void decode(const DeviceUnit&, const float*, int, float*, cudaStream_t) const override {
    throw RuntimeError("powersgd payloads are not decoded one push at a time");
  }

 private:
  void encode(const DeviceUnit&, const float*, int, float*, cudaStream_t) const override {
    throw RuntimeError("powersgd encodes in its GEMMs (compress)");
  }
  static constexpr float one_ = 1.0f, zero_ = 0.0f;
};

}  // namespace

const DeviceCodec& powersgd() {
  static const PowerSgd instance;
  return instance;
}

}  // namespace dtsim::real::cuda::codecs
