// Enqueueing one op on its CUDA stream: cuBLAS GEMMs, NCCL collectives and grouped transfers,
// the server's aggregation and the SGD step, each between its two timing events.
#include <algorithm>
#include <cmath>

#include "real/cuda/cuda_check.hpp"
#include "real/cuda/cuda_executor.hpp"
#include "real/cuda/cuda_gemm.hpp"
#include "real/values.hpp"

namespace dtsim::real::cuda {

void CudaExecutor::enqueue_compute(double flops, Dtype dtype, cudaStream_t stream) {
  cublasSetStream(cublas_, stream);
  flops_executed_ += enqueue_gemms(cublas_, flops, dtype, options_.max_gemm_dim, gemm_a_, gemm_b_, gemm_c_);
}

void CudaExecutor::enqueue(int k, const Op& op, cudaStream_t stream) {
  const size_t at = static_cast<size_t>(k) * program_->ops.size() + static_cast<size_t>(op.id);
  if (hybrid_ && staged_.count(op.id)) {  // a hybrid rank's collective or pipeline message (cuda_hybrid.cpp)
    enqueue_staged(k, op, stream);
    return;
  }
  if (std::holds_alternative<CollectiveOp>(op.body)) {
    enqueue_collective(k, op, stream);
    return;
  }
  if (std::holds_alternative<SendOp>(op.body) || std::holds_alternative<RecvOp>(op.body)) {
    enqueue_p2p(k, op, stream);
    return;
  }
  const Binding& b = binding_.ops[op.id];
  const bool codec = b.unit >= 0 && std::holds_alternative<ComputeOp>(op.body);
  if (codec && b.step == 0) {  // the backward pass's gradients of a compressed unit, untimed
    fill_contribution(buffer(b), b.elements, b.model_offset, binding_.worker_index, k, stream);
  }
  cudaEventRecord(begin_[at], stream);
  if (codec) {
    enqueue_codec(k, op, stream);
  } else if (const auto* c = std::get_if<ComputeOp>(&op.body)) {
    if (b.buffer == BufferKind::Aggregate) {
      cudaMemcpyAsync(grads_, inbox_.front(), static_cast<size_t>(b.elements) * 4, cudaMemcpyDeviceToDevice, stream);
      for (size_t w = 1; w < inbox_.size(); ++w) add_into(grads_, inbox_[w], b.elements, stream);
      const double done = static_cast<double>(b.elements) * static_cast<double>(inbox_.size() - 1);
      flops_executed_ += done;
      if (c->flops > done) enqueue_compute(c->flops - done, Dtype::Fp32, stream);
    } else {
      enqueue_compute(c->flops, c->dtype, stream);
    }
  } else if (const auto* u = std::get_if<UpdateOp>(&op.body)) {
    // The step as the engines cost it (roofline, models/zoo/kernel.cpp): SGD on the rank's parameters and
    // gradients, the rest of the planned memory traffic streamed over the optimizer state with the rest of
    // the arithmetic fused into it; GEMMs only for arithmetic the traffic cannot hide.
    const std::int64_t n = binding_.local_elements;
    sgd_step(params_, grads_, n, options_.learning_rate, stream);
    double done = 2.0 * static_cast<double>(n);
    const double extra_bytes = u->mem_bytes - 12.0 * static_cast<double>(n);
    if (state_ != nullptr && extra_bytes >= 8) {
      const double streamed = std::floor(extra_bytes / 8);
      const int fmas = static_cast<int>(std::clamp(std::ceil((u->flops - done) / (2 * streamed)), 1.0, 64.0));
      done += stream_state(state_, state_elements_, extra_bytes, fmas, stream);
    }
    flops_executed_ += done;
    if (u->flops > done) enqueue_compute(u->flops - done, Dtype::Fp32, stream);
  }
  // A straggler: the op's work repeated (slowdown - 1) more times, as on the cpu backend.
  const double slow = plan_->slowdown_of(rank_, k);
  if (slow > 1) {
    const double before = flops_executed_;
    const Dtype dtype = std::holds_alternative<ComputeOp>(op.body) ? std::get<ComputeOp>(op.body).dtype : Dtype::Fp32;
    enqueue_compute(op_flops(op.body) * (slow - 1), dtype, stream);
    flops_straggler_ += flops_executed_ - before;
    flops_executed_ = before;
  }
  cudaEventRecord(end_[at], stream);
  if (b.buffer == BufferKind::Aggregate && !lossy_pushes_) {
    check_sum(grads_, b.elements, b.model_offset, binding_.workers, k, device_checks_ + op.id, stream);
    checked_[op.id] = 1;
  }
}

void CudaExecutor::enqueue_collective(int k, const Op& op, cudaStream_t stream) {
  const auto& c = std::get<CollectiveOp>(op.body);
  const size_t at = static_cast<size_t>(k) * program_->ops.size() + static_cast<size_t>(op.id);
  const Binding& b = binding_.ops[op.id];
  ncclComm_t comm = groups_.at(c.group);
  const auto& ranks = plan_->groups.at(c.group).ranks;
  const int size = static_cast<int>(ranks.size());
  const int me = static_cast<int>(std::find(ranks.begin(), ranks.end(), rank_) - ranks.begin());
  if (b.unit >= 0) {  // a compressed unit's payload: checked after the decompress
    cudaEventRecord(begin_[at], stream);
    enqueue_codec_collective(op, stream);
    cudaEventRecord(end_[at], stream);
    return;
  }
  float* buf = buffer(b);
  const bool allreduce = c.kind == CollectiveKind::AllReduce && b.buffer == BufferKind::Grads;
  if (allreduce) fill_contribution(buf, b.elements, b.model_offset, me, k, stream);
  const size_t n = static_cast<size_t>(b.elements);
  const size_t block = n / static_cast<size_t>(size);  // NCCL's scatter and gather blocks are equal
  cudaEventRecord(begin_[at], stream);
  switch (c.kind) {
    case CollectiveKind::AllReduce:
      check_nccl(ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, stream), "ncclAllReduce");
      break;
    case CollectiveKind::ReduceScatter:
      check_nccl(ncclReduceScatter(buf, buf + static_cast<size_t>(me) * block, block, ncclFloat, ncclSum, comm, stream),
                 "ncclReduceScatter");
      break;
    case CollectiveKind::AllGather:
      check_nccl(ncclAllGather(buf + static_cast<size_t>(me) * block, buf, block, ncclFloat, comm, stream),
                 "ncclAllGather");
      break;
    case CollectiveKind::Broadcast:
      check_nccl(ncclBroadcast(buf, buf, n, ncclFloat, 0, comm, stream), "ncclBroadcast");
      break;
    case CollectiveKind::Reduce:
      check_nccl(ncclReduce(buf, buf, n, ncclFloat, ncclSum, 0, comm, stream), "ncclReduce");
      break;
    case CollectiveKind::AllToAll:
      check_nccl(ncclGroupStart(), "ncclGroupStart");
      for (int peer = 0; peer < size; ++peer) {
        check_nccl(
            ncclSend(buf + static_cast<size_t>(me * size + peer) * n / size, n / size, ncclFloat, peer, comm, stream),
            "ncclSend");
        check_nccl(
            ncclRecv(buf + static_cast<size_t>(peer * size + me) * n / size, n / size, ncclFloat, peer, comm, stream),
            "ncclRecv");
      }
      check_nccl(ncclGroupEnd(), "ncclGroupEnd");
      break;
  }
  cudaEventRecord(end_[at], stream);
  elements_sent_ += static_cast<double>(n);
  if (allreduce) {
    check_sum(buf, b.elements, b.model_offset, size, k, device_checks_ + op.id, stream);
    checked_[op.id] = 1;
  }
}

void CudaExecutor::enqueue_p2p(int k, const Op& first, cudaStream_t stream) {
  // The group: this op and the posted transfers right after it with the same deps and direction.
  const size_t ops = program_->ops.size();
  size_t last = static_cast<size_t>(first.id);
  const bool sends = std::holds_alternative<SendOp>(first.body);
  while (first.stream == Stream::Posted && last + 1 < ops) {
    const Op& next = program_->ops[last + 1];
    if (next.stream != Stream::Posted || next.deps != first.deps ||
        std::holds_alternative<SendOp>(next.body) != sends ||
        !(std::holds_alternative<SendOp>(next.body) || std::holds_alternative<RecvOp>(next.body))) {
      break;
    }
    ++last;
  }
  const size_t base = static_cast<size_t>(k) * ops;
  for (size_t i = static_cast<size_t>(first.id); i <= last; ++i) {
    const Binding& b = binding_.ops[i];
    if (sends && b.buffer == BufferKind::Grads && b.unit < 0 && binding_.worker_index >= 0) {
      fill_contribution(buffer(b), b.elements, b.model_offset, binding_.worker_index, k, stream);
    }
  }
  for (size_t i = static_cast<size_t>(first.id); i <= last; ++i) cudaEventRecord(begin_[base + i], stream);
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (size_t i = static_cast<size_t>(first.id); i <= last; ++i) {
    const Op& op = program_->ops[i];
    const Binding& b = binding_.ops[i];
    std::int64_t count = b.elements;
    float* buf = b.unit >= 0 ? wire_of(op, count) : buffer(b);  // a compressed push: its payload
    if (const auto* s = std::get_if<SendOp>(&op.body)) {
      check_nccl(ncclSend(buf, static_cast<size_t>(count), ncclFloat, s->peer, p2p_, stream), "ncclSend");
      elements_sent_ += static_cast<double>(count);
    } else {
      const auto& r = std::get<RecvOp>(op.body);
      check_nccl(ncclRecv(buf, static_cast<size_t>(count), ncclFloat, r.peer, p2p_, stream), "ncclRecv");
    }
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  for (size_t i = static_cast<size_t>(first.id); i <= last; ++i) cudaEventRecord(end_[base + i], stream);
}

}  // namespace dtsim::real::cuda
