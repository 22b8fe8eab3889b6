// Collectives on real float buffers over MPI: the schedules of models/collectives/ executed
// round by round with MPI_Isend/MPI_Irecv (the same transfers the simulator replays), or the MPI
// library's own collectives as a peer implementation.
#pragma once

#include <mpi.h>

#include <span>

#include "models/collectives/collective.hpp"
#include "real/codec.hpp"
#include "real/values.hpp"

namespace dtsim::real {

// Carries out `schedule` as group rank `me` of `comm` (group rank i is rank i of comm) on
// `buffer` (layout.elements floats cut into schedule.chunks pieces). Each round: receives are
// posted, then sends of the chunks as they were when the round started; when all of this rank's
// transfers of the round are done, received chunks are added in (reduce) or copied over.
// Returns the floats this rank sent.
// `reduction`: how received chunks are added in (packed halves for fp16/bf16 compression).
std::int64_t run_schedule(const Schedule& schedule, const ChunkLayout& layout, std::span<float> buffer, int me,
                          MPI_Comm comm, Reduction reduction = Reduction::Float);

// The same result with MPI_Allreduce, MPI_Reduce_scatter, MPI_Allgatherv, MPI_Bcast, MPI_Reduce or
// MPI_Alltoallv over `comm` (layout.chunks as native_chunks gives). Returns the floats this
// rank put into the collective.
std::int64_t run_native(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group,
                        std::span<float> buffer, int me, MPI_Comm comm, Reduction reduction = Reduction::Float);

}  // namespace dtsim::real
