// The cuda backend of a dtsim built without the CUDA toolkit: says so, and the launcher exits 3.
#include "real/executor.hpp"

namespace dtsim::real {

std::unique_ptr<RealExecutor> make_cuda_executor(int, const RealOptions&) {
  throw BackendUnavailable(
      "this dtsim-real was built without CUDA (CUDA toolkit and NCCL not found at configure time); use --backend cpu");
}

}  // namespace dtsim::real
