// The cpu backend's BenchSuite: the microbenchmarks of calibrate/microbench.hpp (fp32 GEMMs only:
// dtsim-real's cpu backend runs every dtype in fp32).
#include "calibrate/bench_suite.hpp"

namespace dtsim::calib {
namespace {

class CpuBench : public BenchSuite {
 public:
  explicit CpuBench(MPI_Comm comm) : comm_(comm) {}
  std::string device() const override { return ""; }
  std::map<std::string, std::vector<Sample>> gemm(const BenchOptions& o) override {
    return {{"fp32", bench_gemm(o, comm_)}};
  }
  std::vector<Sample> memory(const BenchOptions& o) override { return bench_memory(o, comm_); }
  std::vector<Sample> collective_buffer(const BenchOptions& o) override { return bench_collective_buffer(o, comm_); }
  std::vector<Sample> push_buffer(const BenchOptions& o) override { return bench_push_buffer(o, comm_); }
  InCacheSamples in_cache(const BenchOptions& o, double llc_bytes) override {
    return bench_in_cache(o, comm_, llc_bytes);
  }
  std::map<std::string, std::vector<Sample>> exchange(const BenchOptions& o) override {
    return bench_exchange(o, comm_);
  }
  std::vector<CollectiveSample> collectives(const BenchOptions& o) override { return bench_collectives(o, comm_); }
  std::optional<ContentionSample> contention(const BenchOptions& o) override { return bench_contention(o, comm_); }
  std::map<std::string, std::vector<Sample>> compression(const BenchOptions& o) override {
    return bench_compression(o, comm_);
  }

 private:
  MPI_Comm comm_;
};

}  // namespace

std::unique_ptr<BenchSuite> make_cpu_bench(MPI_Comm comm) { return std::make_unique<CpuBench>(comm); }

}  // namespace dtsim::calib
