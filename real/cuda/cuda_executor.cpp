// Device selection, NCCL bootstrap, buffers, the enqueue of every iteration, and reading the
// events back as op records.
#include "real/cuda/cuda_executor.hpp"
#include "real/cuda/cuda_check.hpp"
#include "real/cuda/device_select.hpp"

#include <algorithm>
#include <array>
#include <chrono>

#include "core/base/error.hpp"
#include "core/base/executors.hpp"
#include "real/values.hpp"

namespace dtsim::real::cuda {

CudaExecutor::CudaExecutor(HostComm& comm, const RealOptions& options)
    : comm_(comm), rank_(comm.rank()), options_(options) {
  if (options_.max_gemm_dim <= 0) options_.max_gemm_dim = kMaxGemmDimCuda;
  const SelectedDevice d = select_device(comm);
  device_ = d.index;
  device_name_ = d.name;
}

CudaExecutor::~CudaExecutor() {
  for (cudaEvent_t e : begin_) cudaEventDestroy(e);
  for (cudaEvent_t e : end_) cudaEventDestroy(e);
  for (void* p : allocations_) cudaFree(p);
  for (auto& [g, comm] : groups_) ncclCommDestroy(comm);
  for (auto& [pair, comm] : pairs_) ncclCommDestroy(comm);
  if (pinned_) cudaFreeHost(pinned_);
  if (p2p_) ncclCommDestroy(p2p_);
  if (world_) ncclCommDestroy(world_);
  if (cublas_) cublasDestroy(cublas_);
  for (cudaStream_t s : streams_) {
    if (s) cudaStreamDestroy(s);
  }
}

float* CudaExecutor::buffer(const Binding& b) {
  switch (b.buffer) {
    case BufferKind::Grads: return grads_ + b.offset;
    case BufferKind::Params:
    case BufferKind::Aggregate: return params_ + b.offset;
    case BufferKind::Inbox: return inbox_.at(static_cast<size_t>(b.inbox)) + b.offset;
    case BufferKind::Scratch: return lanes_[b.lane] + b.offset;
    case BufferKind::Message: return messages_.at(static_cast<size_t>(b.message));
    case BufferKind::None: return nullptr;
  }
  return nullptr;
}

void* CudaExecutor::alloc(std::int64_t bytes) {
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, static_cast<size_t>(std::max<std::int64_t>(bytes, 16))), "cudaMalloc");
  allocations_.push_back(p);
  return p;
}

void CudaExecutor::setup(const Plan& plan) {
  plan_ = &plan;
  program_ = &plan.ranks.at(rank_);
  binding_ = bind_rank(plan, rank_);
  for (auto& s : streams_) check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  if (cublasCreate(&cublas_) != CUBLAS_STATUS_SUCCESS) throw RuntimeError("cublasCreate failed");
  const std::int64_t local = binding_.local_elements;
  params_ = static_cast<float*>(alloc(local * 4));
  grads_ = static_cast<float*>(alloc(local * 4));
  init_params(params_, local, binding_.local_offset, streams_[0]);
  if (program_->role == Role::Server) {
    for (int w = 0; w < binding_.workers; ++w) inbox_.push_back(static_cast<float*>(alloc(local * 4)));
  }
  // Scratch: one buffer per stream (ops of different streams run at once), as long as its longest binding or its
  // collectives' buffers (an all-to-all's holds size pieces of S).
  std::array<std::int64_t, 3> lanes = binding_.lane_scratch;
  for (const Op& op : program_->ops) {
    const Binding& b = binding_.ops[op.id];
    const auto* c = std::get_if<CollectiveOp>(&op.body);
    if (!c || b.buffer != BufferKind::Scratch) continue;
    const int size = static_cast<int>(plan.groups.at(c->group).ranks.size());
    auto& lane = lanes[static_cast<size_t>(b.lane)];
    lane = std::max(lane, buffer_elements(c->kind, size, b.elements));
  }
  for (int lane = 0; lane < 3; ++lane) lanes_[lane] = static_cast<float*>(alloc(lanes[lane] * 4));
  check_cuda(cudaMemset(grads_, 0, static_cast<size_t>(local) * 4), "cudaMemset");  // ranges nobody reduces
  // The optimizer state the step streams (cuda_ops.cpp): at most 1 GiB, passed over again for more
  // traffic (far beyond the L2 cache either way, so every pass reads and writes device memory).
  for (const Op& op : program_->ops) {
    if (const auto* u = std::get_if<UpdateOp>(&op.body)) {
      const double extra = u->mem_bytes - 12.0 * static_cast<double>(local);
      state_elements_ = std::max(state_elements_, static_cast<std::int64_t>(std::min(extra / 8, double{1 << 28})));
    }
  }
  if (state_elements_ > 0) {
    state_ = static_cast<float*>(alloc(state_elements_ * 4));
    check_cuda(cudaMemset(state_, 0, static_cast<size_t>(state_elements_) * 4), "cudaMemset");
  }
  const std::int64_t side = options_.max_gemm_dim;
  gemm_a_ = alloc(side * side * 4);
  gemm_b_ = alloc(side * side * 4);
  gemm_c_ = alloc(side * side * 4);
  fill_operand(gemm_a_, side * side * 4, streams_[0]);
  fill_operand(gemm_b_, side * side * 4, streams_[0]);
  device_checks_ =
      static_cast<DeviceCheck*>(alloc(static_cast<std::int64_t>(program_->ops.size() * sizeof(DeviceCheck))));
  check_cuda(cudaMemset(device_checks_, 0, program_->ops.size() * sizeof(DeviceCheck)), "cudaMemset");
  checked_.assign(program_->ops.size(), 0);

  // NCCL: a world communicator from rank 0's unique id, one per plan group split from it, and
  // one for point-to-point transfers so they never queue behind collectives.
  ncclUniqueId id{};
  if (rank_ == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  comm_.broadcast_value(id, 0);
  check_nccl(ncclCommInitRank(&world_, comm_.size(), id, rank_), "ncclCommInitRank");
  check_nccl(ncclCommSplit(world_, 0, rank_, &p2p_, nullptr), "ncclCommSplit");
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    const auto& ranks = plan.groups[g].ranks;
    const auto at = std::find(ranks.begin(), ranks.end(), rank_);
    const bool member = at != ranks.end();
    ncclComm_t comm = nullptr;
    check_nccl(ncclCommSplit(world_, member ? static_cast<int>(g) : NCCL_SPLIT_NOCOLOR,
                             member ? static_cast<int>(at - ranks.begin()) : 0, &comm, nullptr),
               "ncclCommSplit");
    if (member) groups_[static_cast<int>(g)] = comm;
  }
  setup_codecs(plan);
  setup_hybrid(plan);
  const size_t events = program_->ops.size() * static_cast<size_t>(plan.warmup + plan.iterations);
  begin_.resize(events);
  end_.resize(events);
  for (size_t i = 0; i < events; ++i) {
    check_cuda(cudaEventCreate(&begin_[i]), "cudaEventCreate");
    check_cuda(cudaEventCreate(&end_[i]), "cudaEventCreate");
  }
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

RunInfo CudaExecutor::run(const Plan& plan, Observer& observer) {
  const auto wall_start = std::chrono::steady_clock::now();
  setup(plan);
  clock_ = comm_.aligned_clock();
  cudaEvent_t base;
  check_cuda(cudaEventCreate(&base), "cudaEventCreate");
  check_cuda(cudaEventRecord(base, streams_[0]), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(base), "cudaEventSynchronize");
  const double base_time = clock_.now();
  for (cudaStream_t s : streams_) check_cuda(cudaStreamWaitEvent(s, base, 0), "cudaStreamWaitEvent");

  const int iterations = plan.warmup + plan.iterations;
  const size_t ops = program_->ops.size();
  for (int k = 0; k < iterations; ++k) {
    if (k > 0) {  // BSP: every stream waits for every op of the previous iteration
      for (cudaStream_t s : streams_) {
        for (size_t i = 0; i < ops; ++i) {
          check_cuda(cudaStreamWaitEvent(s, end_[(k - 1) * ops + i], 0), "cudaStreamWaitEvent");
        }
      }
    }
    for (size_t i = 0; i < ops; ++i) {
      const Op& op = program_->ops[i];
      const bool grouped =
          !hybrid_ && i > 0 && op.stream == Stream::Posted && program_->ops[i - 1].stream == Stream::Posted &&
          program_->ops[i - 1].deps == op.deps &&
          std::holds_alternative<SendOp>(program_->ops[i - 1].body) == std::holds_alternative<SendOp>(op.body);
      if (grouped) continue;  // enqueued with the first op of its group
      cudaStream_t s = stream_of(op.stream);
      for (int d : op.deps) check_cuda(cudaStreamWaitEvent(s, end_[k * ops + d], 0), "cudaStreamWaitEvent");
      if (!op.runs_in(k)) {  // local SGD: an exchange of another iteration ends at once
        cudaEventRecord(begin_[k * ops + i], s);
        cudaEventRecord(end_[k * ops + i], s);
        continue;
      }
      enqueue(k, op, s);
    }
  }
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");

  for (int k = 0; k < iterations; ++k) {
    for (size_t i = 0; i < ops; ++i) {
      if (!program_->ops[i].runs_in(k)) continue;
      float from = 0, to = 0;
      check_cuda(cudaEventElapsedTime(&from, base, begin_[k * ops + i]), "cudaEventElapsedTime");
      check_cuda(cudaEventElapsedTime(&to, base, end_[k * ops + i]), "cudaEventElapsedTime");
      observer.on_op(OpRecord{rank_, k, static_cast<int>(i), base_time + from * 1e-3, base_time + to * 1e-3});
      flops_planned_ += op_flops(program_->ops[i].body);
    }
  }
  host_checks_.resize(ops);
  check_cuda(cudaMemcpy(host_checks_.data(), device_checks_, ops * sizeof(DeviceCheck), cudaMemcpyDeviceToHost),
             "cudaMemcpy");
  check_codecs();
  check_hybrid();
  if (program_->role == Role::Worker) {
    std::vector<float> host(static_cast<size_t>(binding_.local_elements));
    check_cuda(cudaMemcpy(host.data(), params_, host.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    model_hash_ = hash_floats(host.data(), static_cast<std::int64_t>(host.size()));
  }
  cudaEventDestroy(base);
  RunInfo info;
  info.engine = backend_name(Backend::Cuda);
  info.fidelity = "real";
  info.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return info;
}

RankReport CudaExecutor::report() const {
  RankReport r;
  const int iterations = plan_ ? plan_->warmup + plan_->iterations : 0;
  for (size_t i = 0; i < checked_.size() && i < host_checks_.size(); ++i) {
    if (!checked_[i]) continue;
    const Op& op = program_->ops[i];
    const DeviceCheck& d = host_checks_[i];
    const auto* c = std::get_if<CollectiveOp>(&op.body);
    r.checks.push_back(CheckRecord{op.label, c ? std::string(collective_name(c->kind)) : "aggregate",
                                   c ? "nccl" : "sum", binding_.ops[i].elements, static_cast<std::int64_t>(d.checked),
                                   static_cast<std::int64_t>(d.mismatched), iterations, d.checksum, d.expected});
  }
  r.checks.insert(r.checks.end(), codec_checks_.begin(), codec_checks_.end());
  r.checks.insert(r.checks.end(), hybrid_checks_.begin(), hybrid_checks_.end());
  if (plan_) {
    r.replica_group = replica_group(*plan_, rank_);
    r.agreement_required = binding_.replicas_agree;
  }
  r.model_hash = model_hash_;
  r.flops_planned = flops_planned_;
  r.flops_executed = flops_executed_;
  r.flops_straggler = flops_straggler_;
  r.elements_sent = elements_sent_;
  return r;
}

}  // namespace dtsim::real::cuda

namespace dtsim::real {

std::unique_ptr<RealExecutor> make_cuda_executor(HostComm& comm, const RealOptions& options) {
  return std::make_unique<cuda::CudaExecutor>(comm, options);
}

}  // namespace dtsim::real
