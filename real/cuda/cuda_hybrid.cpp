// A hybrid-parallel rank on the cuda backend (binding_hybrid.cpp says which buffer each op works on):
//   collectives        on the NCCL communicator of their plan group (tensor, context, expert, data,
//                      pipeline's tied embedding, ZeRO's gathers and reduce-scatters), every kind;
//                      NCCL cuts scatters, gathers and all-to-alls into equal blocks, so the last
//                      (elements mod size) floats of such a buffer are neither sent nor checked
//   pipeline messages  ncclSend / ncclRecv on a communicator of their two ranks, one per direction
//                      (a rank sends on its posted stream and receives on its compute stream, and an
//                      NCCL communicator is not used from two streams at once)
// Values are those of the cpu backend (values.hpp): before the run every checked iteration's input
// of every collective and message is filled in pinned host memory; the op copies it in before its
// first timing event and its result out after its last; after the run each result is checked
// element by element on the host (exact, as on the cpu backend). The pinned memory is bounded
// (kStagingBytes): when every iteration does not fit, the last ones that do are checked (at least the
// last), and the others run on whatever the buffers hold.
//
// A receive's timing events bracket its wait for the sender too: on this backend a pipeline stage's
// bubble is counted as its receive's communication time (the cpu backend probes for the message first).
#include <algorithm>
#include <span>

#include "core/base/error.hpp"
#include "real/cuda/cuda_check.hpp"
#include "real/cuda/cuda_executor.hpp"
#include "real/values.hpp"

namespace dtsim::real::cuda {
namespace {

constexpr double kStagingBytes = 2.0 * (1u << 30);

// The floats NCCL moves for a collective of `kind` over `size` ranks on a buffer of `elements`.
std::int64_t nccl_elements(CollectiveKind kind, int size, std::int64_t elements) {
  switch (kind) {
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllGather: return elements / size * size;
    case CollectiveKind::AllToAll: return elements / (static_cast<std::int64_t>(size) * size) * size * size;
    default: return elements;
  }
}

}  // namespace

void CudaExecutor::setup_hybrid(const Plan& plan) {
  // Every directed pair of ranks with a pipeline message: a communicator of the two (ncclCommSplit is
  // collective over the world: every rank walks the same list, hybrid or not).
  std::vector<std::pair<int, int>> pairs;
  for (const RankProgram& prog : plan.ranks) {
    if (prog.stage < 0) continue;
    for (const Op& op : prog.ops) {
      if (const auto* s = std::get_if<SendOp>(&op.body)) pairs.emplace_back(prog.rank, s->peer);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto [from, to] = pairs[i];
    const bool member = rank_ == from || rank_ == to;
    ncclComm_t comm = nullptr;
    check_nccl(
        ncclCommSplit(world_, member ? static_cast<int>(i) : NCCL_SPLIT_NOCOLOR, rank_ == to ? 1 : 0, &comm, nullptr),
        "ncclCommSplit");
    if (member) pairs_[pairs[i]] = comm;
  }

  hybrid_ = program_->stage >= 0;
  if (!hybrid_) return;
  for (std::int64_t n : binding_.message_elements) messages_.push_back(static_cast<float*>(alloc(n * 4)));

  // What each checked op starts and ends with.
  const int iterations = plan.warmup + plan.iterations;
  double per_iteration = 0;
  for (const Op& op : program_->ops) {
    const Binding& b = binding_.ops[op.id];
    Staged s;
    if (const auto* c = std::get_if<CollectiveOp>(&op.body)) {
      if (b.unit >= 0) throw RuntimeError("dtsim-real --backend cuda does not compress a hybrid plan's collectives");
      const auto& ranks = plan.groups.at(c->group).ranks;
      s.shape = GroupShape{static_cast<int>(ranks.size()), plan.groups.at(c->group).per_node, 0};
      s.me = static_cast<int>(std::find(ranks.begin(), ranks.end(), rank_) - ranks.begin());
      s.kind = c->kind;
      s.gemm = b.values == Values::TensorGemm;
      s.elements = nccl_elements(c->kind, s.shape.size, buffer_elements(c->kind, s.shape.size, b.elements));
      s.layout = ChunkLayout{s.elements, native_chunks(c->kind, s.shape.size)};
      s.has_in = s.has_out = true;
    } else if (b.buffer == BufferKind::Message) {
      s.elements = b.elements;
      if (const auto* send = std::get_if<SendOp>(&op.body)) {
        s.tag = send->tag;
        s.has_in = true;
      } else {
        s.tag = std::get<RecvOp>(op.body).tag;
        s.has_out = true;
      }
    } else {
      continue;
    }
    per_iteration += 4.0 * static_cast<double>(s.elements) * ((s.has_in ? 1 : 0) + (s.has_out ? 1 : 0));
    staged_[op.id] = s;
  }
  const int checked = std::clamp(static_cast<int>(kStagingBytes / std::max(per_iteration, 1.0)), 1, iterations);
  first_checked_ = iterations - checked;
  const std::int64_t floats = static_cast<std::int64_t>(per_iteration / 4) * checked;
  if (floats > 0) {
    void* p = nullptr;
    check_cuda(cudaMallocHost(&p, static_cast<size_t>(floats) * 4), "cudaMallocHost");
    pinned_ = static_cast<float*>(p);
  }
  float* next = pinned_;
  for (auto& [id, s] : staged_) {
    const Binding& b = binding_.ops[static_cast<size_t>(id)];
    const std::int64_t span = s.elements * checked;
    if (s.has_in) {
      s.in = next;
      next += span;
      for (int k = first_checked_; k < iterations; ++k) {
        const std::span<float> in(s.in + (k - first_checked_) * s.elements, static_cast<size_t>(s.elements));
        if (s.tag >= 0) {
          fill_message(in, s.tag, k);
        } else if (s.gemm) {
          fill_gemm_input(s.kind, s.layout, s.shape, s.me, k, in);
        } else {
          fill_input(s.kind, s.layout, s.shape, s.me, k, b.model_offset, in);
        }
      }
    }
    if (s.has_out) {
      s.out = next;
      next += span;
    }
  }
}

void CudaExecutor::enqueue_staged(int k, const Op& op, cudaStream_t stream) {
  const size_t at = static_cast<size_t>(k) * program_->ops.size() + static_cast<size_t>(op.id);
  const Staged& s = staged_.at(op.id);
  float* buf = buffer(binding_.ops[op.id]);
  const bool checked = k >= first_checked_;
  const size_t bytes = static_cast<size_t>(s.elements) * 4;
  const std::int64_t slot = static_cast<std::int64_t>(k - first_checked_) * s.elements;
  if (s.has_in && checked) {
    check_cuda(cudaMemcpyAsync(buf, s.in + slot, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  }
  cudaEventRecord(begin_[at], stream);
  if (const auto* c = std::get_if<CollectiveOp>(&op.body)) {
    ncclComm_t comm = groups_.at(c->group);
    const int size = s.shape.size, me = s.me;
    const size_t n = static_cast<size_t>(s.elements);
    switch (c->kind) {
      case CollectiveKind::AllReduce:
        check_nccl(ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, stream), "ncclAllReduce");
        break;
      case CollectiveKind::ReduceScatter:
        check_nccl(ncclReduceScatter(buf, buf + me * (n / size), n / size, ncclFloat, ncclSum, comm, stream),
                   "ncclReduceScatter");
        break;
      case CollectiveKind::AllGather:
        check_nccl(ncclAllGather(buf + me * (n / size), buf, n / size, ncclFloat, comm, stream), "ncclAllGather");
        break;
      case CollectiveKind::Broadcast:
        check_nccl(ncclBroadcast(buf, buf, n, ncclFloat, s.shape.root, comm, stream), "ncclBroadcast");
        break;
      case CollectiveKind::Reduce:
        check_nccl(ncclReduce(buf, buf, n, ncclFloat, ncclSum, s.shape.root, comm, stream), "ncclReduce");
        break;
      case CollectiveKind::AllToAll: {
        const size_t piece = n / static_cast<size_t>(size * size);  // chunk (from, to) = from * size + to
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        for (int peer = 0; peer < size; ++peer) {
          check_nccl(ncclSend(buf + (me * size + peer) * piece, piece, ncclFloat, peer, comm, stream), "ncclSend");
          check_nccl(ncclRecv(buf + (peer * size + me) * piece, piece, ncclFloat, peer, comm, stream), "ncclRecv");
        }
        check_nccl(ncclGroupEnd(), "ncclGroupEnd");
        break;
      }
    }
    elements_sent_ += static_cast<double>(n);
  } else if (const auto* send = std::get_if<SendOp>(&op.body)) {
    check_nccl(ncclSend(buf, bytes / 4, ncclFloat, 1, pairs_.at({rank_, send->peer}), stream), "ncclSend");
    elements_sent_ += static_cast<double>(s.elements);
  } else {
    const auto& recv = std::get<RecvOp>(op.body);
    check_nccl(ncclRecv(buf, bytes / 4, ncclFloat, 0, pairs_.at({recv.peer, rank_}), stream), "ncclRecv");
  }
  cudaEventRecord(end_[at], stream);
  if (s.has_out && checked) {
    check_cuda(cudaMemcpyAsync(s.out + slot, buf, bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  }
}

void CudaExecutor::check_hybrid() {
  if (!hybrid_) return;
  const int iterations = plan_->warmup + plan_->iterations;
  for (const auto& [id, s] : staged_) {
    if (!s.has_out) continue;
    const Op& op = program_->ops[static_cast<size_t>(id)];
    const Binding& b = binding_.ops[static_cast<size_t>(id)];
    CheckRecord rec;
    rec.op = op.label;
    rec.algorithm = "nccl";
    rec.elements = s.elements;
    if (s.tag >= 0) {
      rec.kind = "pipeline message";
    } else {
      rec.kind = std::string(collective_name(s.kind));
      if (s.gemm) rec.kind += " (tensor-parallel GEMM)";
    }
    for (int k = first_checked_; k < iterations; ++k) {
      const std::span<const float> out(s.out + static_cast<std::int64_t>(k - first_checked_) * s.elements,
                                       static_cast<size_t>(s.elements));
      const CheckResult r = s.tag >= 0 ? check_message(out, s.tag, k)
                            : s.gemm   ? check_gemm_output(s.kind, s.layout, s.shape, s.me, k, out)
                                       : check_output(s.kind, s.layout, s.shape, s.me, k, b.model_offset, out);
      rec.checked += r.checked;
      rec.mismatched += r.mismatched;
      rec.iterations += 1;
      rec.checksum = r.checksum;
      rec.expected = r.expected;
    }
    hybrid_checks_.push_back(std::move(rec));
  }
}

}  // namespace dtsim::real::cuda
