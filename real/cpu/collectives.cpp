// Round-by-round execution of collective schedules over MPI point-to-point, and the native
// MPI collectives with the same buffer conventions.
#include "real/cpu/collectives.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "real/mpi_world.hpp"

namespace dtsim::real {
namespace {

struct PendingRecv {
  const Transfer* transfer = nullptr;
  float* data = nullptr;  // null: received in place; else a staging buffer of the chunk's size
  std::int64_t count = 0;
};

// Staging buffers for received chunks, kept by the thread across rounds and calls: allocating (and
// zeroing) a chunk-sized vector every round cost as much as copying the chunk.
float* staging(std::size_t slot, std::int64_t count) {
  thread_local std::vector<std::vector<float>> pool;
  if (pool.size() <= slot) pool.resize(slot + 1);
  if (pool[slot].size() < static_cast<std::size_t>(count)) pool[slot].resize(static_cast<std::size_t>(count));
  return pool[slot].data();
}

float* chunk_ptr(std::span<float> buffer, const ChunkLayout& layout, int chunk) {
  return buffer.data() + layout.begin(chunk);
}

int chunk_count(const ChunkLayout& layout, int chunk) { return static_cast<int>(layout.size(chunk)); }

// MPI_SUM, or a user operation adding packed halves (created once, never freed: MPI_Finalize does).
void add_half(void* in, void* inout, int* len, MPI_Datatype*) {
  reduce_into(Reduction::Half, static_cast<float*>(inout), static_cast<const float*>(in), *len);
}
void add_bfloat16(void* in, void* inout, int* len, MPI_Datatype*) {
  reduce_into(Reduction::Bfloat16, static_cast<float*>(inout), static_cast<const float*>(in), *len);
}
MPI_Op mpi_sum(Reduction r) {
  if (r == Reduction::Float) return MPI_SUM;
  static MPI_Op half = [] {
    MPI_Op op;
    MPI_Op_create(add_half, 1, &op);
    return op;
  }();
  static MPI_Op bf16 = [] {
    MPI_Op op;
    MPI_Op_create(add_bfloat16, 1, &op);
    return op;
  }();
  return r == Reduction::Half ? half : bf16;
}

}  // namespace

std::int64_t run_schedule(const Schedule& schedule, const ChunkLayout& layout, std::span<float> buffer, int me,
                          MPI_Comm comm, Reduction reduction) {
  if (layout.chunks != schedule.chunks) {
    throw RuntimeError(fmt::format("buffer cut into {} chunks for a schedule of {}", layout.chunks, schedule.chunks));
  }
  std::int64_t sent = 0;
  std::vector<MPI_Request> requests;
  std::vector<PendingRecv> recvs;
  std::vector<char> sending(static_cast<size_t>(schedule.chunks), 0);
  int round_index = 0;
  for (const Round& round : schedule.rounds) {
    const int tag = round_index++ % 32768;
    requests.clear();
    recvs.clear();
    for (const Transfer& t : round.transfers) {
      if (t.src == me) sending[t.chunk] = 1;
    }
    // In place only when nothing else this round reads or writes the chunk here.
    for (const Transfer& t : round.transfers) {
      if (t.dst != me || t.src == me) continue;
      PendingRecv r{&t, nullptr, layout.size(t.chunk)};
      const bool shared = t.reduce || sending[t.chunk] ||
                          std::count_if(round.transfers.begin(), round.transfers.end(),
                                        [&](const Transfer& o) { return o.dst == me && o.chunk == t.chunk; }) > 1;
      if (shared) r.data = staging(recvs.size(), r.count);
      recvs.push_back(r);
    }
    for (PendingRecv& r : recvs) {
      float* into = r.data == nullptr ? chunk_ptr(buffer, layout, r.transfer->chunk) : r.data;
      requests.emplace_back();
      check_mpi(MPI_Irecv(into, chunk_count(layout, r.transfer->chunk), MPI_FLOAT, r.transfer->src, tag, comm,
                          &requests.back()),
                "MPI_Irecv");
    }
    for (const Transfer& t : round.transfers) {
      if (t.src != me || t.dst == me) continue;
      requests.emplace_back();
      check_mpi(MPI_Isend(chunk_ptr(buffer, layout, t.chunk), chunk_count(layout, t.chunk), MPI_FLOAT, t.dst, tag, comm,
                          &requests.back()),
                "MPI_Isend");
      sent += layout.size(t.chunk);
    }
    wait_all(requests);
    for (PendingRecv& r : recvs) {
      if (r.data == nullptr) continue;
      float* into = chunk_ptr(buffer, layout, r.transfer->chunk);
      if (r.transfer->reduce) {
        reduce_into(reduction, into, r.data, r.count);
      } else {
        std::copy_n(r.data, r.count, into);
      }
    }
    for (const Transfer& t : round.transfers) {
      if (t.src == me) sending[t.chunk] = 0;
    }
  }
  return sent;
}

std::int64_t run_native(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group,
                        std::span<float> buffer, int me, MPI_Comm comm, Reduction reduction) {
  const int n = group.size;
  const int per_rank = std::max(1, layout.chunks / n);
  // Elements of rank r's block of chunks [r * per_rank, (r + 1) * per_rank).
  std::vector<int> counts(n), displs(n);
  for (int r = 0; r < n; ++r) {
    displs[r] = static_cast<int>(layout.begin(std::min(r * per_rank, layout.chunks)));
    counts[r] = static_cast<int>(layout.begin(std::min((r + 1) * per_rank, layout.chunks))) - displs[r];
  }
  const int all = static_cast<int>(layout.elements);
  switch (kind) {
    case CollectiveKind::AllReduce:
      check_mpi(MPI_Allreduce(MPI_IN_PLACE, buffer.data(), all, MPI_FLOAT, mpi_sum(reduction), comm), "MPI_Allreduce");
      return layout.elements;
    case CollectiveKind::Reduce:
      check_mpi(MPI_Reduce(me == group.root ? MPI_IN_PLACE : buffer.data(), buffer.data(), all, MPI_FLOAT, MPI_SUM,
                           group.root, comm),
                "MPI_Reduce");
      return layout.elements;
    case CollectiveKind::Broadcast:
      check_mpi(MPI_Bcast(buffer.data(), all, MPI_FLOAT, group.root, comm), "MPI_Bcast");
      return me == group.root ? layout.elements : 0;
    case CollectiveKind::ReduceScatter: {
      std::vector<float> mine(static_cast<size_t>(counts[me]));
      check_mpi(MPI_Reduce_scatter(buffer.data(), mine.data(), counts.data(), MPI_FLOAT, MPI_SUM, comm),
                "MPI_Reduce_scatter");
      std::copy(mine.begin(), mine.end(), buffer.begin() + displs[me]);
      return layout.elements;
    }
    case CollectiveKind::AllGather:
      check_mpi(
          MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_FLOAT, buffer.data(), counts.data(), displs.data(), MPI_FLOAT, comm),
          "MPI_Allgatherv");
      return counts[me];
    case CollectiveKind::AllToAll: {
      // Rank i sends chunk i*n+j to rank j; rank j keeps chunk i*n+j from every i.
      std::vector<int> scount(n), sdispl(n), rcount(n), rdispl(n);
      std::vector<float> in;
      int at = 0;
      for (int r = 0; r < n; ++r) {
        scount[r] = static_cast<int>(layout.size(me * n + r));
        sdispl[r] = static_cast<int>(layout.begin(me * n + r));
        rcount[r] = static_cast<int>(layout.size(r * n + me));
        rdispl[r] = at;
        at += rcount[r];
      }
      in.resize(static_cast<size_t>(at));
      check_mpi(MPI_Alltoallv(buffer.data(), scount.data(), sdispl.data(), MPI_FLOAT, in.data(), rcount.data(),
                              rdispl.data(), MPI_FLOAT, comm),
                "MPI_Alltoallv");
      for (int r = 0; r < n; ++r) {
        std::copy_n(in.begin() + rdispl[r], rcount[r], buffer.begin() + layout.begin(r * n + me));
      }
      return at;
    }
  }
  return 0;
}

}  // namespace dtsim::real
