// Compressed gradient exchange on the cuda backend: each compressed unit's compress and
// decompress run the kernels of compress_kernels.cu on device buffers (between the op's two
// timing events), the payload goes through NCCL (casts: ncclAllReduce on ncclHalf/ncclBfloat16;
// top-k, random-k, sign: ncclAllGather of the workers' slots; PowerSGD: cuBLAS GEMMs, a
// Gram-Schmidt kernel and two float ncclAllReduces; parameter-server pushes: ncclSend and
// ncclRecv of the payload), error feedback stays on the device. Random-k's indices depend on
// the seed, worker and iteration only: they are drawn on the host with the cpu codec's generator
// and uploaded before the run. After the run, each AllReduce unit's last iteration is checked on
// the host against the cpu codec (real/codec.hpp) applied to a copy of the device's input, summed
// over the workers with the HostComm of its group: exactly (fp16, bf16, top-k, random-k), or within 1e-4 of
// the summed scales (sign: the device sums |x| in float, the cpu codec in double); PowerSGD's
// output against P P^T (the summed M) with the device's P, within 1e-3 of its largest element.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "real/cuda/compress_kernels.hpp"
#include "real/cuda/cuda_check.hpp"
#include "real/cuda/cuda_executor.hpp"
#include "real/values.hpp"

namespace dtsim::real::cuda {

void CudaExecutor::setup_codecs(const Plan& plan) {
  // The groups' ranks for the references: every rank splits for every group (a collective call)
  // as soon as any job compresses, so that all ranks make the same calls.
  const bool any = std::any_of(plan.jobs.begin(), plan.jobs.end(),
                               [](const JobPlan& j) { return j.compression.method != CompressionMethod::None; });
  if (any) {
    for (size_t g = 0; g < plan.groups.size(); ++g) {
      const auto& ranks = plan.groups[g].ranks;
      const bool member = std::find(ranks.begin(), ranks.end(), rank_) != ranks.end();
      std::unique_ptr<HostComm> part = comm_.split(member ? static_cast<int>(g) : -1, rank_);
      if (member) check_comms_[static_cast<int>(g)] = std::move(part);
    }
  }
  const JobPlan& job = plan.jobs[program_->job];
  method_ = job.compression.method;
  compressed_ = method_ != CompressionMethod::None;
  if (!compressed_) return;
  if (!method_traits(method_).cuda.in(job.servers.empty())) {
    throw RuntimeError(fmt::format("the cuda backend does not carry out {} compression", method_name(method_)));
  }
  const bool ps = !job.servers.empty();
  const bool low_rank = method_traits(method_).exchange == Exchange::LowRank;
  CompressionSpec plain = job.compression;  // the host codec encodes what the device encoded
  plain.error_feedback = false;
  const bool feedback = job.compression.error_feedback && reduction_of(method_) == Reduction::Float;
  auto buffers = [&](DeviceUnit& u) {
    u.wire_floats = static_cast<std::int64_t>(u.codec->wire(0).size());
    u.wire = static_cast<float*>(alloc(u.wire_floats * 4));
    check_cuda(cudaMemset(u.wire, 0, static_cast<size_t>(u.wire_floats) * 4), "cudaMemset");
  };
  const int iterations = plan.warmup + plan.iterations;
  for (const Op& op : program_->ops) {
    const Binding& b = binding_.ops[op.id];
    if (b.unit < 0) continue;
    if (program_->role == Role::Server) {  // decoders for the workers whose pushes arrive here
      if (b.step != 1 || decoders_.count(b.inbox) > 0) continue;
      DeviceUnit& d = decoders_[b.inbox];
      d.codec = std::make_unique<Codec>(plain, binding_.local_elements, 1, 0, 1);
      d.n = binding_.local_elements;
      buffers(d);
      lossy_pushes_ = lossy_pushes_ || !d.codec->lossless();
      continue;
    }
    if (b.step == 0) {  // the same seeds as the cpu backend's codecs
      DeviceUnit& u = units_[b.unit];
      u.seed = 0x5eedull * static_cast<std::uint64_t>(b.unit + 1) + program_->job +
               (ps ? 7919ull * static_cast<std::uint64_t>(binding_.worker_index) : 0);
      u.n = b.elements;
      u.workers = ps ? 1 : binding_.workers;
      u.me = ps ? 0 : binding_.worker_index;
      u.codec = std::make_unique<Codec>(plain, u.n, u.workers, u.me, u.seed);
      buffers(u);
      std::int64_t padded = u.n;  // PowerSGD: M is m x cols, zero-padded past n
      if (low_rank) {
        u.m = u.codec->rows();
        u.cols = u.codec->cols();
        u.r = u.codec->rank();
        padded = static_cast<std::int64_t>(u.m) * u.cols;
        const std::span<const float> q = u.codec->q();
        u.wire2 = static_cast<float*>(alloc(static_cast<std::int64_t>(q.size()) * 4));
        check_cuda(cudaMemcpy(u.wire2, q.data(), q.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
      }
      u.x = static_cast<float*>(alloc(padded * 4));
      check_cuda(cudaMemset(u.x, 0, static_cast<size_t>(padded) * 4), "cudaMemset");
      if (feedback || low_rank) u.own = static_cast<float*>(alloc(padded * 4));
      if (feedback) {
        u.residual = static_cast<float*>(alloc(u.n * 4));
        check_cuda(cudaMemset(u.residual, 0, static_cast<size_t>(u.n) * 4), "cudaMemset");
      }
      if (method_ == CompressionMethod::RandomK) {
        const std::int64_t k = u.codec->k();
        std::vector<unsigned> draws(static_cast<size_t>(k) * static_cast<size_t>(iterations));
        for (int it = 0; it < iterations; ++it) {
          const std::vector<std::int64_t> chosen = randomk_draw(u.seed, u.me, it, u.n, k);
          for (size_t j = 0; j < chosen.size(); ++j) {
            draws[static_cast<size_t>(it) * static_cast<size_t>(k) + j] = static_cast<unsigned>(chosen[j]);
          }
        }
        u.draws = static_cast<unsigned*>(alloc(static_cast<std::int64_t>(draws.size()) * 4));
        check_cuda(cudaMemcpy(u.draws, draws.data(), draws.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
      }
    } else if (const auto* c = std::get_if<CollectiveOp>(&op.body)) {
      DeviceUnit& u = units_.at(b.unit);
      u.comm = check_comms_.at(c->group).get();
      const auto& ranks = plan.groups.at(c->group).ranks;
      if (std::find(ranks.begin(), ranks.end(), rank_) - ranks.begin() != u.me) {
        throw RuntimeError("a compressed unit's group does not list the job's workers in order");
      }
    } else if (std::holds_alternative<ComputeOp>(op.body) && b.step == (low_rank ? 4 : 2)) {
      units_.at(b.unit).check_op = op.id;  // the decompress
    }
  }
}

void CudaExecutor::encode(DeviceUnit& u, const float* x, int k, float* payload, cudaStream_t stream) {
  switch (method_) {
    case CompressionMethod::Fp16:
    case CompressionMethod::Bf16: pack_half(x, u.n, method_ == CompressionMethod::Bf16, payload, stream); return;
    case CompressionMethod::TopK: topk_pairs(x, u.n, u.codec->k(), payload, stream); return;
    case CompressionMethod::RandomK:
      gather_pairs(x, u.draws + static_cast<std::int64_t>(k) * u.codec->k(), u.codec->k(), payload, stream);
      return;
    case CompressionMethod::Sign: sign_pack(x, u.n, payload, stream); return;
    case CompressionMethod::Int8:
      quantize_int8(x, u.n, reinterpret_cast<std::int8_t*>(payload + 1), payload, stream);
      return;
    case CompressionMethod::None:
    case CompressionMethod::Qsgd:
    case CompressionMethod::PowerSgd: break;  // refused by setup_codecs; PowerSGD: enqueue_low_rank
  }
  throw RuntimeError(fmt::format("the cuda backend does not encode {} payloads", method_name(method_)));
}

void CudaExecutor::decode(const DeviceUnit& u, const float* payloads, int count, float* out, cudaStream_t stream) {
  const size_t bytes = static_cast<size_t>(u.n) * 4;
  switch (method_) {
    case CompressionMethod::Fp16:
    case CompressionMethod::Bf16:  // an AllReduced wire holds the sum already
      unpack_half(payloads, u.n, method_ == CompressionMethod::Bf16, out, stream);
      return;
    case CompressionMethod::TopK:
    case CompressionMethod::RandomK:
      cudaMemsetAsync(out, 0, bytes, stream);
      scatter_pairs(payloads, count * u.codec->k(), out, stream);
      return;
    case CompressionMethod::Sign: sign_vote(payloads, count, u.codec->slot(), u.n, out, stream); return;
    case CompressionMethod::Int8:
      cudaMemsetAsync(out, 0, bytes, stream);
      dequantize_int8_add(reinterpret_cast<const std::int8_t*>(payloads + 1), payloads, u.n, out, stream);
      return;
    case CompressionMethod::None:
    case CompressionMethod::Qsgd:
    case CompressionMethod::PowerSgd: break;  // refused by setup_codecs; PowerSGD: enqueue_low_rank
  }
  throw RuntimeError(fmt::format("the cuda backend does not decode {} payloads", method_name(method_)));
}

void CudaExecutor::enqueue_codec(int k, const Op& op, cudaStream_t stream) {
  const Binding& b = binding_.ops[op.id];
  if (program_->role == Role::Server) {  // decompress every push received into its inbox
    for (auto& [w, d] : decoders_) decode(d, d.wire, 1, inbox_.at(static_cast<size_t>(w)), stream);
    return;
  }
  DeviceUnit& u = units_.at(b.unit);
  if (u.codec->exchange() == Exchange::LowRank) {
    enqueue_low_rank(k, b, u, stream);
    return;
  }
  if (b.step == 0) {  // error feedback added, encoded into this worker's slot, the residual kept
    add_residual(buffer(b), u.residual, u.n, u.x, stream);
    float* mine = u.wire + u.codec->slot() * u.me;
    encode(u, u.x, k, mine, stream);
    if (u.residual) {
      decode(u, mine, 1, u.own, stream);
      keep_residual(u.x, u.own, u.n, 1.0f, u.residual, stream);
    }
    return;
  }
  decode(u, u.wire, u.workers, buffer(b), stream);  // the combined gradient
  u.last_k = k;
}

// PowerSGD with cuBLAS on M row-major (m x cols), i.e. M^T column-major with leading dimension
// cols: step 0 P = M Q; step 2 P orthogonalised, Q = M^T P; step 4 D = P Q^T (the sum over
// workers), residual = x - D / workers; the summed Q stays in wire2 as the next warm start.
void CudaExecutor::enqueue_low_rank(int k, const Binding& b, DeviceUnit& u, cudaStream_t stream) {
  check_cublas(cublasSetStream(cublas_, stream), "cublasSetStream");
  const float one = 1.0f, zero = 0.0f;
  if (b.step == 0) {
    add_residual(buffer(b), u.residual, u.n, u.x, stream);
    check_cublas(cublasSgemm(cublas_, CUBLAS_OP_T, CUBLAS_OP_N, u.m, u.r, u.cols, &one, u.x, u.cols, u.wire2, u.cols,
                             &zero, u.wire, u.m),
                 "cublasSgemm (P = M Q)");
  } else if (b.step == 2) {
    orthogonalise(u.wire, u.m, u.r, stream);
    check_cublas(cublasSgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, u.cols, u.r, u.m, &one, u.x, u.cols, u.wire, u.m, &zero,
                             u.wire2, u.cols),
                 "cublasSgemm (Q = M^T P)");
  } else {
    check_cublas(cublasSgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_T, u.cols, u.m, u.r, &one, u.wire2, u.cols, u.wire, u.m,
                             &zero, u.own, u.cols),
                 "cublasSgemm (P Q^T)");
    cudaMemcpyAsync(buffer(b), u.own, static_cast<size_t>(u.n) * 4, cudaMemcpyDeviceToDevice, stream);
    if (u.residual) keep_residual(u.x, u.own, u.n, 1.0f / static_cast<float>(u.workers), u.residual, stream);
    u.last_k = k;
  }
}

void CudaExecutor::enqueue_codec_collective(const Op& op, cudaStream_t stream) {
  const auto& c = std::get<CollectiveOp>(op.body);
  DeviceUnit& u = units_.at(binding_.ops[op.id].unit);
  ncclComm_t comm = groups_.at(c.group);
  switch (u.codec->exchange()) {
    case Exchange::LowRank: {  // P (step 1), then Q (step 3)
      const bool q = binding_.ops[op.id].step == 3;
      const size_t count = static_cast<size_t>(q ? u.cols : u.m) * static_cast<size_t>(u.r);
      check_nccl(ncclAllReduce(q ? u.wire2 : u.wire, q ? u.wire2 : u.wire, count, ncclFloat, ncclSum, comm, stream),
                 "ncclAllReduce");
      elements_sent_ += static_cast<double>(count);
      return;
    }
    case Exchange::AllReduce:  // the casts: halves summed as halves
      check_nccl(
          ncclAllReduce(u.wire, u.wire, static_cast<size_t>(u.n),
                        u.codec->reduction() == Reduction::Bfloat16 ? ncclBfloat16 : ncclHalf, ncclSum, comm, stream),
          "ncclAllReduce");
      break;
    case Exchange::AllGather: {
      const std::int64_t slot = u.codec->slot();
      check_nccl(ncclAllGather(u.wire + slot * u.me, u.wire, static_cast<size_t>(slot), ncclFloat, comm, stream),
                 "ncclAllGather");
      break;
    }
  }
  elements_sent_ += static_cast<double>(u.wire_floats);
}

float* CudaExecutor::wire_of(const Op& op, std::int64_t& floats) {
  const Binding& b = binding_.ops[op.id];
  DeviceUnit& u = std::holds_alternative<SendOp>(op.body) ? units_.at(b.unit) : decoders_.at(b.inbox);
  floats = u.wire_floats;
  return u.wire;
}

void CudaExecutor::check_codecs() {
  const int iterations = plan_->warmup + plan_->iterations;
  if (lossy_pushes_) {  // listed, so that nobody reads it as checked
    for (const Op& op : program_->ops) {
      const Binding& b = binding_.ops[op.id];
      if (b.buffer != BufferKind::Aggregate) continue;
      codec_checks_.push_back(
          CheckRecord{op.label, "aggregate of lossy pushes (not checked)", "sum", b.elements, 0, 0, iterations, 0, 0});
    }
  }
  for (auto& [unit, u] : units_) {
    if (u.check_op < 0 || u.last_k < 0) continue;  // pushes: checked by the server's aggregate
    const Op& op = program_->ops[static_cast<size_t>(u.check_op)];
    const auto n = static_cast<size_t>(u.n);
    const bool low_rank = u.codec->exchange() == Exchange::LowRank;
    std::vector<float> x(low_rank ? static_cast<size_t>(u.m) * static_cast<size_t>(u.cols) : n), out(n);
    check_cuda(cudaMemcpy(x.data(), u.x, x.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    check_cuda(cudaMemcpy(out.data(), buffer(binding_.ops[op.id]), n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    CheckRecord r;  // the last iteration's result
    r.op = op.label;
    r.kind = fmt::format("compressed {}", method_name(method_));
    r.algorithm = exchange_label(u.codec->exchange());
    r.elements = u.n;
    r.iterations = 1;
    auto compare = [&](size_t e, float want, float tolerance) {
      ++r.checked;
      if (!(std::fabs(out[e] - want) <= tolerance)) ++r.mismatched;
      r.checksum += out[e];
      r.expected += want;
    };
    switch (method_) {
      case CompressionMethod::PowerSgd: {  // P P^T (the workers' M summed), with the device's orthogonalised P
        const auto m = static_cast<size_t>(u.m), cols = static_cast<size_t>(u.cols), rank = static_cast<size_t>(u.r);
        std::vector<float> p(m * rank);
        check_cuda(cudaMemcpy(p.data(), u.wire, p.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
        u.comm->allreduce(std::span<float>(x), HostComm::Reduce::Sum);
        std::vector<double> t(rank * cols, 0.0);  // P^T M
        for (size_t j = 0; j < rank; ++j) {
          for (size_t l = 0; l < m; ++l) {
            for (size_t c = 0; c < cols; ++c) t[j * cols + c] += static_cast<double>(p[j * m + l]) * x[l * cols + c];
          }
        }
        std::vector<float> want(n);
        float largest = 1.0f;
        for (size_t e = 0; e < n; ++e) {
          double v = 0;
          for (size_t j = 0; j < rank; ++j) v += static_cast<double>(p[j * m + e / cols]) * t[j * cols + e % cols];
          want[e] = static_cast<float>(v);
          largest = std::max(largest, std::fabs(want[e]));
        }
        for (size_t e = 0; e < n; ++e) compare(e, want[e], 1e-3f * largest);
        break;
      }
      case CompressionMethod::Sign: {
        Codec& ref = *u.codec;
        ref.compress(x, u.last_k);
        std::vector<float> votes(n + 1);
        for (size_t e = 0; e < n; ++e) votes[e] = ref.own()[e] >= 0 ? 1 : -1;
        votes.back() = n > 0 ? std::fabs(ref.own().front()) : 0.0f;  // this worker's scale
        u.comm->allreduce(std::span<float>(votes), HostComm::Reduce::Sum);
        const float scales = votes.back();
        for (size_t e = 0; e < n; ++e) {
          compare(e, votes[e] > 0 ? scales : votes[e] < 0 ? -scales : 0.0f, 1e-4f * std::fabs(scales));
        }
        break;
      }
      // Casts of small integers, top-k, random-k: the exact sum of the workers' decoded payloads.
      case CompressionMethod::None:
      case CompressionMethod::Fp16:
      case CompressionMethod::Bf16:
      case CompressionMethod::Int8:
      case CompressionMethod::Qsgd:
      case CompressionMethod::TopK:
      case CompressionMethod::RandomK: {
        Codec& ref = *u.codec;
        ref.compress(x, u.last_k);
        std::vector<float> sum = ref.own();
        u.comm->allreduce(std::span<float>(sum), HostComm::Reduce::Sum);
        for (size_t e = 0; e < n; ++e) compare(e, sum[e], 0.0f);
        break;
      }
    }
    codec_checks_.push_back(r);
  }
}

}  // namespace dtsim::real::cuda
