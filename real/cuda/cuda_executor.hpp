// The cuda backend: one GPU per rank (the local rank's device; more ranks than devices on a host
// is refused as unavailable, since NCCL rejects two ranks of a communicator on one GPU), NCCL
// communicators bootstrapped through the ranks' HostComm (ncclGetUniqueId on rank 0, broadcast; MPI
// processes, or the threads of one process in the launcher-free mode), one CUDA stream per Plan
// stream with dependencies as CUDA events, compute as cuBLAS GEMMs in the op's dtype, NCCL
// collectives and ncclSend/ncclRecv for parameter servers, CUDA events for timing.
//
// The whole run is enqueued up front and timed by events; BSP is each stream waiting on the
// previous iteration's last event of every stream. Consecutive posted transfers with the same
// dependencies form one NCCL group (a server receiving from every worker at once) and share one
// pair of events. Checks run on the device (kernels.cu) outside the timed events.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <map>
#include <memory>
#include <vector>

#include "real/binding.hpp"
#include "real/codec.hpp"
#include "real/cuda/device_codec.hpp"
#include "real/cuda/kernels.hpp"
#include "real/executor.hpp"
#include "real/host_comm.hpp"
#include "real/values.hpp"

namespace dtsim::real::cuda {

class CudaExecutor : public RealExecutor {
 public:
  CudaExecutor(HostComm& comm, const RealOptions& options);  // throws BackendUnavailable without a GPU
  ~CudaExecutor() override;
  CudaExecutor(const CudaExecutor&) = delete;
  CudaExecutor& operator=(const CudaExecutor&) = delete;

  RunInfo run(const Plan& plan, Observer& observer) override;
  RankReport report() const override;
  std::string device() const override { return device_name_; }

 private:
  void setup(const Plan& plan);
  void enqueue(int k, const Op& op, cudaStream_t stream);
  void enqueue_compute(double flops, Dtype dtype, cudaStream_t stream);
  void enqueue_collective(int k, const Op& op, cudaStream_t stream);
  void enqueue_p2p(int k, const Op& op, cudaStream_t stream);
  float* buffer(const Binding& b);
  void* alloc(std::int64_t bytes);

  // Compressed gradient units (cuda_codec.cpp): each unit's host and cuda halves of its method's
  // codec (device_codec.hpp), the payload's NCCL collective or transfer, and the check against
  // the host half.
  void setup_codecs(const Plan& plan);
  void enqueue_codec(int k, const Op& op, cudaStream_t stream);
  void enqueue_codec_collective(const Op& op, cudaStream_t stream);
  void check_codecs();
  float* wire_of(const Op& op, std::int64_t& floats);
  bool lossy_pushes_ = false;
  std::map<int, DeviceUnit> units_;                       // by unit (a parameter-server worker: by shard)
  std::map<int, DeviceUnit> decoders_;                    // a server's decoders, by inbox (worker)
  std::map<int, std::unique_ptr<HostComm>> check_comms_;  // plan group -> its ranks, for the references
  std::vector<CheckRecord> codec_checks_;
  cudaStream_t stream_of(Stream s) const { return streams_[static_cast<int>(s)]; }

  // Hybrid-parallel ranks (cuda_hybrid.cpp): collectives of every kind and pipeline messages, their
  // values staged in pinned host memory and checked on the host after the run.
  struct Staged {
    std::int64_t elements = 0;  // floats copied in and out per iteration
    bool has_in = false, has_out = false;
    float* in = nullptr;   // [checked iteration][elements]: what the op starts with (pinned)
    float* out = nullptr;  // and what it ended with
    CollectiveKind kind = CollectiveKind::AllReduce;
    ChunkLayout layout;
    GroupShape shape;
    int me = 0;
    bool gemm = false;  // a tensor-parallel GEMM's partial products
    int tag = -1;       // a pipeline message's tag
  };
  void setup_hybrid(const Plan& plan);
  void enqueue_staged(int k, const Op& op, cudaStream_t stream);
  void check_hybrid();
  bool hybrid_ = false;
  std::map<int, Staged> staged_;  // by op
  float* pinned_ = nullptr;
  int first_checked_ = 0;  // iterations before it are neither filled nor checked (the staging's bound)
  std::vector<CheckRecord> hybrid_checks_;
  std::vector<float*> messages_;                     // one per message buffer of the binding
  std::map<std::pair<int, int>, ncclComm_t> pairs_;  // (sender, receiver) -> the two ranks' communicator

  HostComm& comm_;
  int rank_;
  int device_ = 0;
  std::string device_name_;
  RealOptions options_;
  Clock clock_;
  const Plan* plan_ = nullptr;
  const RankProgram* program_ = nullptr;
  RankBinding binding_;
  cudaStream_t streams_[3] = {};
  cublasHandle_t cublas_ = nullptr;
  ncclComm_t world_ = nullptr, p2p_ = nullptr;
  std::map<int, ncclComm_t> groups_;  // plan group -> communicator
  std::vector<void*> allocations_;
  float *params_ = nullptr, *grads_ = nullptr;
  float* lanes_[3] = {};    // scratch, one per stream
  float* state_ = nullptr;  // the optimizer state the step streams
  std::int64_t state_elements_ = 0;
  std::vector<float*> inbox_;
  void *gemm_a_ = nullptr, *gemm_b_ = nullptr, *gemm_c_ = nullptr;
  DeviceCheck* device_checks_ = nullptr;  // one per op
  std::vector<DeviceCheck> host_checks_;
  std::vector<char> checked_;             // ops with a device check
  std::vector<cudaEvent_t> begin_, end_;  // [iteration * ops + op]
  double flops_planned_ = 0, flops_executed_ = 0, elements_sent_ = 0, flops_straggler_ = 0;
  std::uint64_t model_hash_ = 0;
};

}  // namespace dtsim::real::cuda
