// The numbers in the real buffers: integer-valued floats, so every sum of them is exact in fp32
// and every rank can check a collective's result element by element. Pure functions, no MPI.
#pragma once

#include <cstdint>
#include <span>

#include "models/collectives/collective.hpp"

namespace dtsim::real {

// Contribution of group rank `r` to element `e` in round `salt` (an iteration): -3..4.
inline float contribution(std::int64_t e, int r, int salt) {
  return static_cast<float>(((e + 3 * static_cast<std::int64_t>(r) + salt) & 7) - 3);
}
// What a buffer holds where nobody has written yet (a gather's or broadcast's empty slots).
inline constexpr float kEmpty = -1000.0f;

// How a buffer of `elements` floats is cut into `chunks` pieces (the schedule's chunk ids):
// chunk c is [c * elements / chunks, (c + 1) * elements / chunks), sizes differing by at most one.
struct ChunkLayout {
  std::int64_t elements = 0;
  int chunks = 1;

  std::int64_t begin(int c) const { return static_cast<std::int64_t>(c) * elements / chunks; }
  std::int64_t size(int c) const { return begin(c + 1) - begin(c); }
};

// The buffer a collective of `kind` works on, of `elements` per rank as collective.hpp defines
// S (AllToAll: `elements` sent by each rank, the buffer holding all size * size pieces).
std::int64_t buffer_elements(CollectiveKind kind, int group_size, std::int64_t elements);
// Chunks the MPI library's own collectives use for `kind` (one per rank where ownership matters).
int native_chunks(CollectiveKind kind, int group_size);

// Fills `buffer` with what group rank `me` starts with (offset: the buffer's first element's
// index in the model, so values follow the model and not the buffer).
void fill_input(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me, int salt,
                std::int64_t offset, std::span<float> buffer);

struct CheckResult {
  std::int64_t checked = 0;     // elements checked
  std::int64_t mismatched = 0;  // elements not as the collective promises
  double checksum = 0;          // sum of the checked elements as held
  double expected = 0;          // the sum they should have
};

// Writes contribution(first + i, r, salt) into out[i] (a period-8 pattern, copied in blocks).
void fill_contributions(std::span<float> out, std::int64_t first, int r, int salt);
// Adds to `r` the comparison of have[i] with want[i % 8] (every expected value here has period 8):
// eight independent lanes, so the loop streams at memory speed instead of one long addition chain.
void check_periodic(std::span<const float> have, const float (&want)[8], CheckResult& r);

// Checks what group rank `me` holds after the collective against what it promises.
CheckResult check_output(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me, int salt,
                         std::int64_t offset, std::span<const float> buffer);

// Sum over group ranks 0..size-1 of contribution(e, r, salt), from a table of 8 residues.
class SumTable {
 public:
  SumTable(int size, int salt);
  float at(std::int64_t e) const { return sums_[static_cast<std::size_t>(e & 7)]; }

 private:
  float sums_[8] = {};
};

// A pipeline message (a stage's activation, or its gradient going back) with tag `tag` in iteration
// `salt`: elements 0 and 1 say the tag and the iteration (mod 2^24, exact in fp32), the rest the
// pattern of contribution(e, tag, salt); a message of another micro-batch or iteration fails the check.
void fill_message(std::span<float> out, int tag, int salt);
CheckResult check_message(std::span<const float> in, int tag, int salt);

// Tensor-parallel collectives carry a row-parallel GEMM's output C = X W, [rows x kGemmCols] in
// row-major order, X and W of small integers (every sum exact in fp32), the inner dimension
// kGemmInner x t split over the group's t ranks: rank r holds C_r, the product of its slices, and
// the reduction must give the unsplit product. A gather's chunks are pieces of C itself.
inline constexpr int kGemmCols = 64;
inline constexpr int kGemmInner = 8;                  // per rank
float gemm_partial(std::int64_t e, int r, int salt);  // C_r[e]
float gemm_full(std::int64_t e, int t, int salt);     // C[e] = sum over r < t of C_r[e], computed unsplit
void fill_gemm_input(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me, int salt,
                     std::span<float> buffer);
CheckResult check_gemm_output(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me, int salt,
                              std::span<const float> buffer);

// The same values, computed once per (collective shape, group rank, salt) and kept (per thread, for the salt last
// asked): what rank `me` starts with, and the whole output it must end with (left 0 where it checks nothing).
// Computing them is a GEMM of kGemmInner x t per element, tens of memory passes over the buffer: the cpu
// backend's tensor-parallel collectives copy and compare these instead, at memory speed, as the engines cost the
// fill and check of every collective (memory.collective_buffer).
struct GemmValues {
  std::vector<float> input;
  std::vector<float> output;
};
const GemmValues& gemm_values(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me,
                              int salt);
// check_gemm_output against kept values.
CheckResult compare_gemm_output(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me,
                                std::span<const float> want, std::span<const float> buffer);

// FNV-1a over the bytes of the floats (a model's fingerprint).
std::uint64_t hash_floats(const float* data, std::int64_t n);

}  // namespace dtsim::real
