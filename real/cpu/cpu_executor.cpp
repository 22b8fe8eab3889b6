// Setting up one rank's buffers and communicators, then running its streams as threads.
#include "real/cpu/cpu_executor.hpp"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/base/executors.hpp"
#include "real/mpi_world.hpp"

namespace dtsim::real {

CpuExecutor::CpuExecutor(int rank, const RealOptions& options) : rank_(rank), options_(options) {
  if (options_.max_gemm_dim <= 0) options_.max_gemm_dim = kMaxGemmDim;
}

CpuExecutor::~CpuExecutor() {
  for (auto& [group, comm] : group_comms_) MPI_Comm_free(&comm);
  if (p2p_ != MPI_COMM_NULL) MPI_Comm_free(&p2p_);
}

void CpuExecutor::setup(const Plan& plan) {
  plan_ = &plan;
  program_ = &plan.ranks.at(rank_);
  binding_ = bind_rank(plan, rank_);
  const auto local = static_cast<size_t>(binding_.local_elements);
  params_.resize(local);
  grads_.assign(local, 0.0f);
  for (size_t e = 0; e < local; ++e) params_[e] = static_cast<float>((binding_.local_offset + e) % 1024);
  if (program_->role == Role::Server && program_->serves >= 0) {  // an asynchronous server: its worker's pushes only
    const auto& workers = plan.jobs[program_->job].workers;
    inbox_.assign(workers.size(), {});
    inbox_[static_cast<size_t>(std::find(workers.begin(), workers.end(), program_->serves) - workers.begin())].resize(
        local);
  } else if (program_->role == Role::Server) {
    inbox_.assign(static_cast<size_t>(binding_.workers), std::vector<float>(local));
  }
  gemms_ = EigenGemms(options_.max_gemm_dim);

  check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &p2p_), "MPI_Comm_dup");
  MPI_Group world_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    const auto& ranks = plan.groups[g].ranks;
    if (std::find(ranks.begin(), ranks.end(), rank_) == ranks.end()) continue;
    MPI_Group group;
    MPI_Group_incl(world_group, static_cast<int>(ranks.size()), ranks.data(), &group);
    MPI_Comm comm;
    check_mpi(MPI_Comm_create_group(MPI_COMM_WORLD, group, static_cast<int>(g), &comm), "MPI_Comm_create_group");
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Group_free(&group);
    group_comms_[static_cast<int>(g)] = comm;
  }
  MPI_Group_free(&world_group);

  setup_codecs(plan);
  std::array<std::int64_t, 3> scratch = binding_.lane_scratch;
  for (const Op& op : program_->ops) {
    const auto* c = std::get_if<CollectiveOp>(&op.body);
    if (!c) continue;
    const CommGroup& group = plan.groups.at(c->group);
    CollectiveSetup cs;
    cs.comm = group_comms_.at(c->group);
    cs.shape = GroupShape{static_cast<int>(group.ranks.size()), group.per_node, 0};
    cs.me = static_cast<int>(std::find(group.ranks.begin(), group.ranks.end(), rank_) - group.ranks.begin());
    const Binding& b = binding_.ops[op.id];
    const std::int64_t elements = b.unit >= 0
                                      ? static_cast<std::int64_t>(codecs_.at(b.unit).codec->wire(b.step == 3).size())
                                      : buffer_elements(c->kind, cs.shape.size, b.elements);
    auto& lane = scratch[static_cast<size_t>(b.lane)];
    if (b.buffer == BufferKind::Scratch && b.unit < 0) lane = std::max(lane, elements);
    if (b.unit >= 0) codecs_.at(b.unit).comm = group_comms_.at(c->group);
    if (options_.mpi_collectives) {
      cs.layout = ChunkLayout{elements, native_chunks(c->kind, cs.shape.size)};
    } else {
      cs.schedule = c->algorithm->schedule(c->kind, cs.shape, c->bytes);
      cs.layout = ChunkLayout{elements, cs.schedule.chunks};
    }
    collectives_[op.id] = std::move(cs);
  }
  for (size_t lane = 0; lane < scratch_.size(); ++lane) scratch_[lane].assign(static_cast<size_t>(scratch[lane]), 0.0f);
  messages_.assign(binding_.message_elements.size(), {});
  const auto bytes = [](const std::vector<float>& v) { return 4.0 * static_cast<double>(v.size()); };
  meter_.add(MemoryUse::Parameters, bytes(params_));
  meter_.add(MemoryUse::Gradients, bytes(grads_));
  for (const auto& lane : scratch_) meter_.add(MemoryUse::Communication, bytes(lane));
  for (const auto& in : inbox_) meter_.add(MemoryUse::Communication, bytes(in));
  setup_stash(plan);
  setup_shared(plan);
  board_ = std::make_unique<OpBoard>(*program_, plan.warmup + plan.iterations, policy_);
}

std::span<float> CpuExecutor::buffer(const Binding& b) {
  std::vector<float>* v = nullptr;
  switch (b.buffer) {
    case BufferKind::Grads: v = &grads_; break;
    case BufferKind::Params:
    case BufferKind::Aggregate: v = &params_; break;
    case BufferKind::Inbox: v = &inbox_.at(static_cast<size_t>(b.inbox)); break;
    case BufferKind::Scratch: v = &scratch_.at(static_cast<size_t>(b.lane)); break;
    case BufferKind::Message: v = &messages_.at(static_cast<size_t>(b.message)); break;
    case BufferKind::None: return {};
  }
  return std::span<float>(*v).subspan(static_cast<size_t>(b.offset), static_cast<size_t>(b.elements));
}

void CpuExecutor::record(int k, const Op& op, double start, double end) {
  std::lock_guard lock(mutex_);
  records_.push_back(OpRecord{rank_, k, op.id, start, end});
  flops_planned_ += op_flops(op.body);
}

void CpuExecutor::stream_loop(Stream stream, int iterations) {
  if (stream == Stream::Comm) poll_while_idle(&computing_);
  for (int k = 0; k < iterations; ++k) {
    for (const Op& op : program_->ops) {
      if (op.stream != stream) continue;
      board_->wait_ready(k, op.id);
      if (!op.runs_in(k)) {  // local SGD: an exchange of another iteration ends at once, unrecorded
        board_->finish(k, op.id);
        continue;
      }
      const Binding& b = binding_.ops[op.id];
      if (b.unit >= 0 && b.step == 0) fill_unit(k, op);  // the backward pass's gradients, untimed
      if (stash_begin_[static_cast<size_t>(op.id)]) {
        stash_[op.micro_batch].emplace_back(new float[static_cast<size_t>(stash_bytes_ / 4)]);
        meter_.add(MemoryUse::Activations, stash_bytes_);
      }
      const double start = clock_.now();
      // A GEMM or an update running: the comm thread's waits back off meanwhile (poll_while_idle).
      const bool busy = stream == Stream::Compute && is_compute(op.body);
      if (busy) ++computing_;
      if (std::holds_alternative<ComputeOp>(op.body)) {
        if (b.buffer == BufferKind::Aggregate) {
          run_aggregate(k, op);
        } else if (b.unit >= 0) {
          run_codec(op, k);
        } else {
          run_compute(k, op);
        }
      } else if (std::holds_alternative<UpdateOp>(op.body)) {
        if (shard_.win != MPI_WIN_NULL) {
          apply_async(k, op);
        } else {
          run_update(k, op);
        }
      } else if (std::holds_alternative<CollectiveOp>(op.body)) {
        run_collective(k, op);  // records its own times: buffers are filled and checked outside them
        board_->finish(k, op.id);
        continue;
      } else {
        run_p2p_blocking(k, op);
        board_->finish(k, op.id);
        continue;
      }
      straggle(k, op);
      if (busy) --computing_;
      record(k, op, start, clock_.now());
      if (stash_end_[static_cast<size_t>(op.id)] && !stash_[op.micro_batch].empty()) {
        stash_[op.micro_batch].pop_back();
        meter_.release(MemoryUse::Activations, stash_bytes_);
      }
      if (b.unit >= 0 && b.step > 0) check_codec(k, op);  // after the decompress, untimed
      board_->finish(k, op.id);
    }
  }
}

void CpuExecutor::posted_loop(int iterations) {
  struct Active {
    const Op* op;
    MPI_Request request;
    double start;
  };
  precise_sleeps();
  for (int k = 0; k < iterations; ++k) {
    std::vector<const Op*> pending;
    for (const Op& op : program_->ops) {
      if (op.stream == Stream::Posted) pending.push_back(&op);
    }
    std::vector<Active> active;
    std::vector<Active> gates;  // SSP gates waiting for the slowest worker (no request)
    int idle = 0;
    while (!pending.empty() || !active.empty() || !gates.empty()) {
      if (cancel_) throw RuntimeError("cancelled: another stream of this rank failed");
      bool progressed = false;
      for (auto it = pending.begin(); it != pending.end();) {
        if (!board_->ready(k, (*it)->id)) {
          ++it;
          continue;
        }
        if (!(*it)->runs_in(k)) {
          board_->finish(k, (*it)->id);
        } else if (std::holds_alternative<GateOp>((*it)->body)) {
          publish_clock(k);
          gates.push_back(Active{*it, MPI_REQUEST_NULL, clock_.now()});
        } else {
          MPI_Request request = start_p2p(k, **it);
          active.push_back(Active{*it, request, clock_.now()});
        }
        it = pending.erase(it);
        progressed = true;
      }
      for (auto it = gates.begin(); it != gates.end();) {
        if (!gate_open(k, std::get<GateOp>(it->op->body).lag)) {
          ++it;
          continue;
        }
        record(k, *it->op, it->start, clock_.now());
        board_->finish(k, it->op->id);
        it = gates.erase(it);
        progressed = true;
      }
      for (auto it = active.begin(); it != active.end();) {
        int done = 0;
        check_mpi(MPI_Test(&it->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (!done) {
          ++it;
          continue;
        }
        record(k, *it->op, it->start, clock_.now());
        check_received(k, *it->op);
        release_message(*it->op);
        board_->finish(k, it->op->id);
        it = active.erase(it);
        progressed = true;
      }
      idle = progressed ? 0 : idle + 1;
      if (progressed) continue;
      if (active.empty() && gates.empty()) {
        board_->wait_change(500);
      } else if (idle < 200) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
    }
  }
}

RunInfo CpuExecutor::run(const Plan& plan, Observer& observer) {
  const auto wall_start = std::chrono::steady_clock::now();
  setup(plan);
  clock_ = Clock::aligned(MPI_COMM_WORLD);
  const int iterations = plan.warmup + plan.iterations;
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(3);
  auto guarded = [&](int slot, auto body) {
    return std::thread([&, slot, body] {
      try {
        body();
      } catch (...) {
        errors[static_cast<size_t>(slot)] = std::current_exception();
        cancel_ = true;
        board_->cancel();
      }
    });
  };
  bool has[3] = {false, false, false};
  for (const Op& op : program_->ops) has[static_cast<int>(op.stream)] = true;
  if (has[0]) threads.push_back(guarded(0, [&] { stream_loop(Stream::Compute, iterations); }));
  if (has[1]) threads.push_back(guarded(1, [&] { stream_loop(Stream::Comm, iterations); }));
  if (has[2]) threads.push_back(guarded(2, [&] { posted_loop(iterations); }));
  for (auto& t : threads) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  finish_shared();
  for (const auto& r : records_) observer.on_op(r);
  RunInfo info;
  info.engine = backend_name(Backend::Cpu);
  info.fidelity = "real";
  info.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return info;
}

RankReport CpuExecutor::report() const {
  std::lock_guard lock(mutex_);
  RankReport r;
  for (const auto& [id, check] : checks_) r.checks.push_back(check);
  if (program_ && program_->role == Role::Worker) {
    r.model_hash = hash_floats(params_.data(), static_cast<std::int64_t>(params_.size()));
    r.replica_group = replica_group(*plan_, rank_);
    r.agreement_required = binding_.replicas_agree;
  }
  r.memory_peak = meter_.peak();
  r.memory_at_peak = meter_.at_peak();
  r.flops_planned = flops_planned_;
  r.flops_executed = flops_executed_;
  r.elements_sent = elements_sent_;
  r.flops_straggler = flops_straggler_;
  r.staleness = staleness_;
  return r;
}

void CpuExecutor::setup_stash(const Plan& plan) {
  stash_begin_.assign(program_->ops.size(), 0);
  stash_end_.assign(program_->ops.size(), 0);
  const JobPlan& job = plan.jobs[program_->job];
  if (program_->stage < 0 || static_cast<size_t>(program_->stage) >= job.memory.size()) return;
  const StageMemory& stage = job.memory[static_cast<size_t>(program_->stage)];
  stash_bytes_ = stage.bytes.activations / std::max(1, stage.micro_batches_in_flight);
  // Runs: consecutive compute kernels of one micro-batch in one direction (recompute is backward's).
  int last = -1, last_mb = -1;
  bool last_forward = false;
  for (const Op& op : program_->ops) {
    const bool pass = op.phase == Phase::Forward || op.phase == Phase::Backward || op.phase == Phase::Recompute;
    if (op.stream != Stream::Compute || !std::holds_alternative<ComputeOp>(op.body) || !pass || op.micro_batch < 0)
      continue;
    const bool forward = op.phase == Phase::Forward;
    if (last < 0 || op.micro_batch != last_mb || forward != last_forward) {
      if (last >= 0 && !last_forward) stash_end_[static_cast<size_t>(last)] = 1;
      if (forward) stash_begin_[static_cast<size_t>(op.id)] = 1;
    }
    last = op.id;
    last_mb = op.micro_batch;
    last_forward = forward;
  }
  if (last >= 0 && !last_forward) stash_end_[static_cast<size_t>(last)] = 1;
}

std::string CpuExecutor::device() const {
  const int cpu = sched_getcpu();
  return cpu >= 0 ? fmt::format("cpu (core {} at start)", cpu) : std::string("cpu");
}

std::unique_ptr<RealExecutor> make_cpu_executor(int rank, const RealOptions& options) {
  return std::make_unique<CpuExecutor>(rank, options);
}

}  // namespace dtsim::real
