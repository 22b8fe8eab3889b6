// The bodies of one rank's ops on the CPU: GEMMs, the SGD step, a server's aggregation,
// collectives and point-to-point transfers on the real buffers, with their checks.
#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "real/cpu/collectives.hpp"
#include "real/cpu/cpu_executor.hpp"
#include "real/gemm.hpp"

namespace dtsim::real {

void CpuExecutor::execute_flops(double flops) {
  const std::vector<GemmShape> shapes = gemm_shapes(flops, options_.max_gemm_dim);
  gemms_.run(shapes);
  std::lock_guard lock(mutex_);
  flops_executed_ += gemm_flops(shapes);
}

// A straggler's op runs its work (slowdown - 1) more times: repeated GEMMs rather than a sleep,
// so a slow rank holds its core as a slow device would, and the same on both backends.
void CpuExecutor::straggle(int k, const Op& op) {
  const double slow = plan_->slowdown_of(rank_, k);
  if (slow <= 1) return;
  double before = 0;
  {
    std::lock_guard lock(mutex_);
    before = flops_executed_;
  }
  execute_flops(op_flops(op.body) * (slow - 1));
  std::lock_guard lock(mutex_);
  flops_straggler_ += flops_executed_ - before;
  flops_executed_ = before;
}

void CpuExecutor::run_compute(int, const Op& op) {
  // fp16 and bf16 are computed in fp32: Eigen has no fast half-precision GEMM on CPUs.
  execute_flops(std::get<ComputeOp>(op.body).flops);
}

void CpuExecutor::run_update(int, const Op& op) {
  const auto& u = std::get<UpdateOp>(op.body);
  const float lr = options_.learning_rate;
  for (size_t e = 0; e < params_.size(); ++e) params_[e] -= lr * grads_[e];
  const double done = 2.0 * static_cast<double>(params_.size());
  {
    std::lock_guard lock(mutex_);
    flops_executed_ += done;
  }
  // Momentum's and Adam's extra arithmetic as GEMMs (the state is not kept).
  if (u.flops > done) execute_flops(u.flops - done);
}

void CpuExecutor::run_aggregate(int k, const Op& op) {
  const size_t n = grads_.size();
  // The exact sum of every worker's gradients (what lossy compressed pushes cannot give back).
  const bool check = !lossy_pushes_;
  const SumTable sums(binding_.workers, k);
  float want[8];
  for (int j = 0; j < 8; ++j) want[j] = check ? sums.at(binding_.local_offset + j) : 0.0f;
  CheckResult r;
  // One pass, as the Plan costs it (read every inbox once, write the sum once): block by block,
  // each block summed and checked while it is in the L1 cache (a copy, an addition per inbox and a
  // check each over the whole shard took twice the memory traffic: 0.35-0.39 ms per 2 MB shard of
  // ps_2w2s_4MB, 0.12-0.22 ms predicted).
  constexpr size_t kBlock = 2048;  // floats (8 KB); a multiple of the check's period 8
  for (size_t begin = 0; begin < n; begin += kBlock) {
    const size_t len = std::min(kBlock, n - begin);
    float* out = grads_.data() + begin;
    std::copy_n(inbox_.front().data() + begin, len, out);
    for (size_t w = 1; w < inbox_.size(); ++w) {
      const float* in = inbox_[w].data() + begin;
      for (size_t e = 0; e < len; ++e) out[e] += in[e];
    }
    if (check) check_periodic(std::span<const float>(out, len), want, r);
  }
  const double done = static_cast<double>(n) * static_cast<double>(inbox_.size() - 1);
  {
    std::lock_guard lock(mutex_);
    flops_executed_ += done;
  }
  const double planned = std::get<ComputeOp>(op.body).flops;
  if (planned > done) execute_flops(planned - done);
  if (!check) {  // listed, so that nobody reads it as checked
    add_check(op, "aggregate of lossy pushes (not checked)", "sum", static_cast<std::int64_t>(n), CheckResult{});
    return;
  }
  add_check(op, "aggregate", "sum", static_cast<std::int64_t>(n), r);
}

void CpuExecutor::run_collective(int k, const Op& op) {
  const auto& c = std::get<CollectiveOp>(op.body);
  const CollectiveSetup& cs = collectives_.at(op.id);
  const Binding& b = binding_.ops[op.id];
  if (b.unit >= 0) {  // a compressed unit's payload: checked after decompressing
    Codec& codec = *codecs_.at(b.unit).codec;
    std::span<float> wire(codec.wire(b.step == 3));
    const double start = clock_.now();
    const std::int64_t sent = options_.mpi_collectives
                                  ? run_native(c.kind, cs.layout, cs.shape, wire, cs.me, cs.comm, codec.reduction())
                                  : run_schedule(cs.schedule, cs.layout, wire, cs.me, cs.comm, codec.reduction());
    record(k, op, start, clock_.now());
    std::lock_guard lock(mutex_);
    elements_sent_ += static_cast<double>(sent);
    return;
  }
  std::span<float> buf =
      b.buffer == BufferKind::Scratch
          ? std::span<float>(scratch_.at(static_cast<size_t>(b.lane))).first(static_cast<size_t>(cs.layout.elements))
          : buffer(b);
  const GroupShape shape = cs.shape;
  const bool gemm = b.values == Values::TensorGemm;
  // A tensor-parallel collective's values are a GEMM's: computed once an iteration and copied (gemm_values).
  const GemmValues* values = gemm ? &gemm_values(c.kind, cs.layout, shape, cs.me, k) : nullptr;
  if (gemm) {
    std::copy(values->input.begin(), values->input.end(), buf.begin());
  } else {
    fill_input(c.kind, cs.layout, shape, cs.me, k, b.model_offset, buf);
  }
  const double start = clock_.now();
  const std::int64_t sent = options_.mpi_collectives ? run_native(c.kind, cs.layout, shape, buf, cs.me, cs.comm)
                                                     : run_schedule(cs.schedule, cs.layout, buf, cs.me, cs.comm);
  record(k, op, start, clock_.now());
  {
    std::lock_guard lock(mutex_);
    elements_sent_ += static_cast<double>(sent);
  }
  const CheckResult r = gemm ? compare_gemm_output(c.kind, cs.layout, shape, cs.me, values->output, buf)
                             : check_output(c.kind, cs.layout, shape, cs.me, k, b.model_offset, buf);
  add_check(
      op,
      gemm ? fmt::format("{} (tensor-parallel GEMM)", collective_name(c.kind)) : std::string(collective_name(c.kind)),
      options_.mpi_collectives ? std::string("mpi") : std::string(c.algorithm->name()), cs.layout.elements, r);
}

void CpuExecutor::acquire_message(const Binding& b) {
  if (b.buffer != BufferKind::Message) return;
  messages_.at(static_cast<size_t>(b.message)).resize(static_cast<size_t>(b.elements));
  meter_.add(MemoryUse::Communication, 4.0 * static_cast<double>(b.elements));
}

void CpuExecutor::release_message(const Op& op) {
  const Binding& b = binding_.ops[op.id];
  if (b.buffer != BufferKind::Message) return;
  std::vector<float>& m = messages_.at(static_cast<size_t>(b.message));
  meter_.release(MemoryUse::Communication, 4.0 * static_cast<double>(m.size()));
  std::vector<float>().swap(m);
}

MPI_Request CpuExecutor::start_p2p(int k, const Op& op) {
  const Binding& b = binding_.ops[op.id];
  acquire_message(b);
  std::span<float> buf = buffer(b);
  MPI_Request request = MPI_REQUEST_NULL;
  if (b.unit >= 0) {  // a compressed push, or its receipt at the server
    std::vector<float>& wire = std::holds_alternative<SendOp>(op.body) ? codecs_.at(b.unit).codec->wire(0)
                                                                       : inbox_codecs_.at(b.inbox)->wire(0);
    buf = std::span<float>(wire);
  }
  const int count = static_cast<int>(buf.size());
  if (const auto* s = std::get_if<SendOp>(&op.body)) {
    if (b.buffer == BufferKind::Grads && b.unit < 0) {  // a worker's push: this iteration's gradients
      fill_contributions(buf, b.model_offset, binding_.worker_index, k);
    } else if (b.buffer == BufferKind::Message) {  // a stage's activation or activation gradient
      fill_message(buf, s->tag, k);
    }
    check_mpi(MPI_Isend(buf.data(), count, MPI_FLOAT, s->peer, s->tag, p2p_, &request), "MPI_Isend");
    std::lock_guard lock(mutex_);
    elements_sent_ += count;
  } else {
    const auto& r = std::get<RecvOp>(op.body);
    check_mpi(MPI_Irecv(buf.data(), count, MPI_FLOAT, r.peer, r.tag, p2p_, &request), "MPI_Irecv");
  }
  return request;
}

void CpuExecutor::run_p2p_blocking(int k, const Op& op) {
  // A stage's receive starts, as the engines time it, when its neighbour has sent: the wait before
  // is the pipeline bubble (waiting in metrics.json), not communication.
  if (const auto* r = std::get_if<RecvOp>(&op.body); r && binding_.ops[op.id].buffer == BufferKind::Message) {
    await_message(r->peer, r->tag);
  }
  const double start = clock_.now();
  MPI_Request request = start_p2p(k, op);
  wait_all(std::span<MPI_Request>(&request, 1), &cancel_);
  record(k, op, start, clock_.now());
  check_received(k, op);
  release_message(op);
}

void CpuExecutor::await_message(int peer, int tag) {
  for (int idle = 0;; ++idle) {
    if (cancel_) throw RuntimeError("cancelled: another stream of this rank failed");
    int there = 0;
    check_mpi(MPI_Iprobe(peer, tag, p2p_, &there, MPI_STATUS_IGNORE), "MPI_Iprobe");
    if (there) return;
    if (idle < 200) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
}

void CpuExecutor::check_received(int k, const Op& op) {
  const Binding& b = binding_.ops[op.id];
  const auto* r = std::get_if<RecvOp>(&op.body);
  if (!r || b.buffer != BufferKind::Message) return;
  add_check(op, "pipeline message", "mpi", b.elements, check_message(buffer(b), r->tag, k));
}

void CpuExecutor::add_check(const Op& op, std::string kind, std::string algorithm, std::int64_t elements,
                            const CheckResult& r) {
  std::lock_guard lock(mutex_);
  CheckRecord& c = checks_[op.id];
  c.op = op.label;
  c.kind = std::move(kind);
  c.algorithm = std::move(algorithm);
  c.elements = elements;
  c.checked += r.checked;
  c.mismatched += r.mismatched;
  c.iterations += 1;
  c.checksum = r.checksum;
  c.expected = r.expected;
}

}  // namespace dtsim::real
