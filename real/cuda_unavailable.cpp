// The cuda backend of a dtsim built without the CUDA toolkit: says so, and the launcher exits 3.
#include "real/executor.hpp"

namespace dtsim::real {

namespace {
constexpr const char* kNoCuda =
    "this dtsim-real was built without CUDA (CUDA toolkit and NCCL not found at configure time); use --backend cpu";
}  // namespace

std::unique_ptr<RealExecutor> make_cuda_executor(HostComm&, const RealOptions&) { throw BackendUnavailable(kNoCuda); }

int visible_gpus() { throw BackendUnavailable(kNoCuda); }

}  // namespace dtsim::real
