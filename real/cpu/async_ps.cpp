// Asynchronous parameter servers (ASP, SSP) on the CPU backend. The Plan gives every shard one
// server rank per worker; they share the shard's parameters for real: the parameters and a version
// counter live in an MPI window (MPI_Win_allocate) on the shard's first server rank, and each
// server rank applies its worker's push under an exclusive lock (get, SGD step, put), then sends
// the latest parameters back. The version it read, minus the version its previous update left,
// is the number of other workers' updates in between: the staleness, measured. SSP workers
// publish their iteration in a window of clocks on the job's first server rank (MPI_Accumulate
// with MPI_MAX) and their gate reads every clock (MPI_Get_accumulate with MPI_NO_OP).
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "real/cpu/cpu_executor.hpp"
#include "real/mpi_world.hpp"

namespace dtsim::real {
namespace {

constexpr MPI_Aint kHeader = sizeof(std::int64_t);  // the version counter before the parameters

// Creates a window over MPI_COMM_WORLD with `bytes` on this rank (0 elsewhere).
MPI_Win allocate(MPI_Aint bytes, void** base) {
  MPI_Win win = MPI_WIN_NULL;
  check_mpi(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, base, &win), "MPI_Win_allocate");
  return win;
}

}  // namespace

void CpuExecutor::setup_shared(const Plan& plan) {
  // Every rank creates every window, in the same order (MPI_Win_allocate is collective).
  for (size_t j = 0; j < plan.jobs.size(); ++j) {
    const JobPlan& jp = plan.jobs[j];
    if (!jp.asynchronous) continue;
    const bool mine = program_->job == static_cast<int>(j);
    const int clock_owner = jp.servers.front();
    void* base = nullptr;
    const MPI_Aint clock_bytes = rank_ == clock_owner ? static_cast<MPI_Aint>(8 * jp.workers.size()) : 0;
    MPI_Win clocks = allocate(clock_bytes, &base);
    if (clock_bytes > 0) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, clocks);
      std::memset(base, 0, static_cast<size_t>(clock_bytes));
      MPI_Win_unlock(rank_, clocks);
    }
    windows_.push_back(clocks);
    if (mine && program_->role == Role::Worker) clocks_ = SharedShard{clocks, clock_owner};
    for (int s = 0; s < jp.shards; ++s) {
      int owner = -1;
      for (int r : jp.servers) {
        if (plan.ranks[r].shard == s && owner < 0) owner = r;
      }
      const MPI_Aint bytes =
          rank_ == owner ? kHeader + static_cast<MPI_Aint>(sizeof(float)) * binding_.local_elements : 0;
      MPI_Win win = allocate(bytes, &base);
      if (bytes > 0) {  // version 0 and the initial parameters
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win);
        std::memset(base, 0, static_cast<size_t>(kHeader));
        std::memcpy(static_cast<char*>(base) + kHeader, params_.data(), params_.size() * sizeof(float));
        MPI_Win_unlock(rank_, win);
      }
      windows_.push_back(win);
      if (mine && program_->role == Role::Server && program_->shard == s) {
        shard_ = SharedShard{win, owner};
        shard_owner_ = rank_ == owner;
      }
    }
  }
}

void CpuExecutor::apply_async(int k, const Op& op) {
  const auto& u = std::get<UpdateOp>(op.body);
  const auto& workers = plan_->jobs[program_->job].workers;
  const auto from = static_cast<size_t>(std::find(workers.begin(), workers.end(), program_->serves) - workers.begin());
  const std::vector<float>& pushed = inbox_.at(from);
  const int n = static_cast<int>(params_.size());
  const float lr = options_.learning_rate;
  std::int64_t version = 0;
  check_mpi(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, shard_.owner, 0, shard_.win), "MPI_Win_lock");
  MPI_Get(&version, 1, MPI_INT64_T, shard_.owner, 0, 1, MPI_INT64_T, shard_.win);
  MPI_Get(params_.data(), n, MPI_FLOAT, shard_.owner, kHeader, n, MPI_FLOAT, shard_.win);
  check_mpi(MPI_Win_flush(shard_.owner, shard_.win), "MPI_Win_flush");
  for (int e = 0; e < n; ++e) params_[static_cast<size_t>(e)] -= lr * pushed[static_cast<size_t>(e)];
  const std::int64_t next = version + 1;
  MPI_Put(&next, 1, MPI_INT64_T, shard_.owner, 0, 1, MPI_INT64_T, shard_.win);
  MPI_Put(params_.data(), n, MPI_FLOAT, shard_.owner, kHeader, n, MPI_FLOAT, shard_.win);
  check_mpi(MPI_Win_unlock(shard_.owner, shard_.win), "MPI_Win_unlock");
  {
    std::lock_guard lock(mutex_);
    if (k >= plan_->warmup) staleness_.push_back(static_cast<int>(version - last_version_));
    last_version_ = next;
    flops_executed_ += 2.0 * n;
  }
  if (u.flops > 2.0 * n) execute_flops(u.flops - 2.0 * n);
}

void CpuExecutor::publish_clock(int k) {
  const std::int64_t reached = k + 1;
  check_mpi(MPI_Win_lock(MPI_LOCK_SHARED, clocks_.owner, 0, clocks_.win), "MPI_Win_lock");
  MPI_Accumulate(&reached, 1, MPI_INT64_T, clocks_.owner, 8 * binding_.worker_index, 1, MPI_INT64_T, MPI_MAX,
                 clocks_.win);
  check_mpi(MPI_Win_unlock(clocks_.owner, clocks_.win), "MPI_Win_unlock");
}

bool CpuExecutor::gate_open(int k, int lag) {
  std::vector<std::int64_t> clocks(static_cast<size_t>(binding_.workers), 0);
  const int n = binding_.workers;
  check_mpi(MPI_Win_lock(MPI_LOCK_SHARED, clocks_.owner, 0, clocks_.win), "MPI_Win_lock");
  MPI_Get_accumulate(nullptr, 0, MPI_INT64_T, clocks.data(), n, MPI_INT64_T, clocks_.owner, 0, n, MPI_INT64_T,
                     MPI_NO_OP, clocks_.win);
  check_mpi(MPI_Win_unlock(clocks_.owner, clocks_.win), "MPI_Win_unlock");
  return *std::min_element(clocks.begin(), clocks.end()) >= k - lag + 1;
}

// After every rank has run: each shard's owner checks that every push was applied exactly once
// (the SGD steps on integer-valued gradients with lr 1/16 are exact in any order), then the
// windows are freed (collectively).
void CpuExecutor::finish_shared() {
  if (windows_.empty()) return;
  check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  if (shard_owner_ && !lossy_pushes_) {
    const int iterations = plan_->warmup + plan_->iterations;
    const std::int64_t n = binding_.local_elements;
    std::vector<float> final_params(static_cast<size_t>(n));
    std::int64_t version = 0;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, shard_.win);
    MPI_Get(&version, 1, MPI_INT64_T, rank_, 0, 1, MPI_INT64_T, shard_.win);
    MPI_Get(final_params.data(), static_cast<int>(n), MPI_FLOAT, rank_, kHeader, static_cast<int>(n), MPI_FLOAT,
            shard_.win);
    MPI_Win_unlock(rank_, shard_.win);
    std::vector<SumTable> sums;
    for (int k = 0; k < iterations; ++k) sums.emplace_back(binding_.workers, k);
    CheckResult r;
    for (std::int64_t e = 0; e < n; ++e) {
      const std::int64_t at = binding_.local_offset + e;
      double want = static_cast<double>(at % 1024);
      for (const SumTable& s : sums) want -= options_.learning_rate * s.at(at);
      ++r.checked;
      if (static_cast<double>(final_params[static_cast<size_t>(e)]) != want) ++r.mismatched;
      r.checksum += final_params[static_cast<size_t>(e)];
      r.expected += want;
    }
    // A lost or repeated update shows in the version as well as in the values.
    const std::int64_t updates = static_cast<std::int64_t>(binding_.workers) * iterations;
    if (version != updates) r.mismatched += std::max<std::int64_t>(1, std::abs(version - updates));
    Op shard_op;
    shard_op.id = -1 - program_->shard;
    shard_op.label = fmt::format("shard {} after {} updates", program_->shard, version);
    add_check(shard_op, "async updates", "rma", n, r);
  }
  for (MPI_Win& w : windows_) MPI_Win_free(&w);
  windows_.clear();
}

}  // namespace dtsim::real
