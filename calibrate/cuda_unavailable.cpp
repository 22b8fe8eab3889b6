// `dtsim calibrate --backend cuda` in a dtsim built without the CUDA toolkit: says so (exit code 3).
#include "calibrate/bench_suite.hpp"
#include "real/executor.hpp"

namespace dtsim::calib {

std::unique_ptr<BenchSuite> make_cuda_bench(real::HostComm&) {
  throw real::BackendUnavailable(
      "this dtsim was built without CUDA (CUDA toolkit and NCCL not found at configure time), so dtsim calibrate "
      "--backend cuda cannot run; use --backend cpu");
}

}  // namespace dtsim::calib
