// Compressed gradient exchange on the cuda backend: each compressed unit's steps run its method's
// cuda half (device_codec.hpp: the kernels of compress_kernels.cu, PowerSGD's cuBLAS GEMMs) on
// device buffers, between the op's two timing events; the payload goes through NCCL (casts:
// ncclAllReduce on ncclHalf/ncclBfloat16; top-k, random-k, sign: ncclAllGather of the workers'
// slots; PowerSGD: two float ncclAllReduces; parameter-server pushes: ncclSend and ncclRecv of
// the payload); error feedback stays on the device. After the run, each AllReduce unit's last
// iteration is checked on the host against what the unit's host half (real/codec.hpp) expects of
// a copy of the device's input, summed over the workers with the HostComm of its group
// (Codec::expected; PowerSGD's with the device's P).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "real/cuda/cuda_check.hpp"
#include "real/cuda/cuda_executor.hpp"
#include "real/values.hpp"

namespace dtsim::real::cuda {
namespace {

// The step of a unit's exchange that decompresses: after one collective, or PowerSGD's two.
int last_step(const Codec& c) { return c.exchange() == Exchange::LowRank ? 4 : 2; }

}  // namespace

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
  const CompressionMethod method = job.compression.method;
  if (method == CompressionMethod::None) return;
  const DeviceCodec* device = device_codec(method);
  if (device == nullptr || !method_traits(method).cuda.in(job.servers.empty())) {
    throw RuntimeError(fmt::format("the cuda backend does not carry out {} compression", method_name(method)));
  }
  const bool ps = !job.servers.empty();
  auto buffers = [&](DeviceUnit& u) {
    u.device = device;
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
      d.codec = make_codec(job.compression, binding_.local_elements, 1, 0, 1);
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
      u.codec = make_codec(job.compression, u.n, u.workers, u.me, u.seed);
      buffers(u);
      const bool low_rank = u.codec->exchange() == Exchange::LowRank;
      std::int64_t padded = u.n;  // PowerSGD: M is m x cols, zero-padded past n
      if (low_rank) {
        u.m = u.codec->rows();
        u.cols = u.codec->cols();
        u.r = u.codec->rank();
        u.cublas = cublas_;
        padded = static_cast<std::int64_t>(u.m) * u.cols;
        const std::span<const float> q = u.codec->q();
        u.wire2 = static_cast<float*>(alloc(static_cast<std::int64_t>(q.size()) * 4));
        check_cuda(cudaMemcpy(u.wire2, q.data(), q.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
      }
      u.x = static_cast<float*>(alloc(padded * 4));
      check_cuda(cudaMemset(u.x, 0, static_cast<size_t>(padded) * 4), "cudaMemset");
      const bool feedback = u.codec->error_feedback();  // the casts keep none
      if (feedback || low_rank) u.own = static_cast<float*>(alloc(padded * 4));
      if (feedback) {
        u.residual = static_cast<float*>(alloc(u.n * 4));
        check_cuda(cudaMemset(u.residual, 0, static_cast<size_t>(u.n) * 4), "cudaMemset");
      }
      device->prepare(u, iterations, [this](std::int64_t bytes) { return alloc(bytes); });
    } else if (const auto* c = std::get_if<CollectiveOp>(&op.body)) {
      DeviceUnit& u = units_.at(b.unit);
      u.comm = check_comms_.at(c->group).get();
      const auto& ranks = plan.groups.at(c->group).ranks;
      if (std::find(ranks.begin(), ranks.end(), rank_) - ranks.begin() != u.me) {
        throw RuntimeError("a compressed unit's group does not list the job's workers in order");
      }
    } else if (std::holds_alternative<ComputeOp>(op.body) && b.step == last_step(*units_.at(b.unit).codec)) {
      units_.at(b.unit).check_op = op.id;  // the decompress
    }
  }
}

void CudaExecutor::enqueue_codec(int k, const Op& op, cudaStream_t stream) {
  const Binding& b = binding_.ops[op.id];
  if (program_->role == Role::Server) {  // decompress every push received into its inbox
    for (auto& [w, d] : decoders_) d.device->decode(d, d.wire, 1, inbox_.at(static_cast<size_t>(w)), stream);
    return;
  }
  DeviceUnit& u = units_.at(b.unit);
  if (b.step == 0) {
    u.device->compress(u, k, buffer(b), stream);
  } else if (b.step == last_step(*u.codec)) {
    u.device->decompress(u, buffer(b), stream);  // the combined gradient
    u.last_k = k;
  } else {
    u.device->between(u, stream);
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
    r.kind = fmt::format("compressed {}", method_name(u.codec->method()));
    r.algorithm = exchange_label(u.codec->exchange());
    r.elements = u.n;
    r.iterations = 1;
    auto compare = [&](size_t e, float want, float tolerance) {
      ++r.checked;
      if (!(std::fabs(out[e] - want) <= tolerance)) ++r.mismatched;
      r.checksum += out[e];
      r.expected += want;
    };
    Codec& ref = *u.codec;
    ref.compress(x, u.last_k);
    if (low_rank) {  // the device's orthogonalised P
      check_cuda(cudaMemcpy(ref.wire(0).data(), u.wire, ref.wire(0).size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    }
    const Codec::Expected want = ref.expected([&](std::span<float> v) { u.comm->allreduce(v, HostComm::Reduce::Sum); });
    for (size_t e = 0; e < n; ++e) compare(e, want.values[e], want.tolerance);
    codec_checks_.push_back(r);
  }
}

}  // namespace dtsim::real::cuda
