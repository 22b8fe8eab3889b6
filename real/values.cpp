// Filling and checking collective buffers: who owns which chunk at the start, and what every
// element must hold at the end, by collective kind (the chunk conventions of collective.hpp).
#include "real/values.hpp"

#include <algorithm>
#include <cstring>

namespace dtsim::real {
namespace {

// The rank whose contribution a chunk carries, for kinds where chunks have owners.
int owner(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int c) {
  if (kind == CollectiveKind::AllToAll) return c / group.size;
  return c / std::max(1, layout.chunks / group.size);
}

bool reduces(CollectiveKind kind) {
  return kind == CollectiveKind::AllReduce || kind == CollectiveKind::ReduceScatter || kind == CollectiveKind::Reduce;
}

}  // namespace

std::int64_t buffer_elements(CollectiveKind kind, int group_size, std::int64_t elements) {
  return kind == CollectiveKind::AllToAll ? elements * group_size : elements;
}

int native_chunks(CollectiveKind kind, int group_size) {
  switch (kind) {
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllGather: return group_size;
    case CollectiveKind::AllToAll: return group_size * group_size;
    default: return 1;
  }
}

SumTable::SumTable(int size, int salt) {
  for (int k = 0; k < 8; ++k) {
    for (int r = 0; r < size; ++r) sums_[k] += contribution(k, r, salt);
  }
}

void fill_contributions(std::span<float> out, std::int64_t first, int r, int salt) {
  float pattern[8];
  for (int j = 0; j < 8; ++j) pattern[j] = contribution(first + j, r, salt);
  const std::size_t n = out.size();
  std::size_t e = 0;
  for (; e + 8 <= n; e += 8) std::memcpy(out.data() + e, pattern, sizeof(pattern));
  for (; e < n; ++e) out[e] = pattern[e & 7];
}

void check_periodic(std::span<const float> have, const float (&want)[8], CheckResult& r) {
  double lanes[8] = {};
  std::int64_t bad = 0;
  const std::size_t n = have.size();
  std::size_t e = 0;
  for (; e + 8 <= n; e += 8) {
    for (std::size_t j = 0; j < 8; ++j) {
      const float h = have[e + j];
      lanes[j] += h;
      bad += h != want[j];
    }
  }
  double expected = 0;
  for (int j = 0; j < 8; ++j) expected += static_cast<double>(want[j]) * static_cast<double>(e / 8);
  for (; e < n; ++e) {
    lanes[e & 7] += have[e];
    bad += have[e] != want[e & 7];
    expected += want[e & 7];
  }
  for (double l : lanes) r.checksum += l;
  r.expected += expected;
  r.checked += static_cast<std::int64_t>(n);
  r.mismatched += bad;
}

void fill_input(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me, int salt,
                std::int64_t offset, std::span<float> buffer) {
  const bool everything = reduces(kind) || (kind == CollectiveKind::Broadcast && me == group.root);
  for (int c = 0; c < layout.chunks; ++c) {
    const bool mine = everything || ((kind == CollectiveKind::AllGather || kind == CollectiveKind::AllToAll) &&
                                     owner(kind, layout, group, c) == me);
    const std::span<float> part =
        buffer.subspan(static_cast<std::size_t>(layout.begin(c)), static_cast<std::size_t>(layout.size(c)));
    if (mine) {
      fill_contributions(part, offset + layout.begin(c), me, salt);
    } else {
      std::fill(part.begin(), part.end(), kEmpty);
    }
  }
}

CheckResult check_output(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me, int salt,
                         std::int64_t offset, std::span<const float> buffer) {
  CheckResult r;
  const SumTable sums(group.size, salt);
  for (int c = 0; c < layout.chunks; ++c) {
    const int own = owner(kind, layout, group, c);
    bool checked = true;
    switch (kind) {
      case CollectiveKind::Reduce: checked = me == group.root; break;
      case CollectiveKind::ReduceScatter: checked = own == me; break;
      case CollectiveKind::AllToAll: checked = c % group.size == me; break;
      default: break;
    }
    if (!checked) continue;
    const std::int64_t first = offset + layout.begin(c);
    float want[8];
    for (int j = 0; j < 8; ++j) {
      want[j] = reduces(kind) ? sums.at(first + j)
                              : contribution(first + j, kind == CollectiveKind::Broadcast ? group.root : own, salt);
    }
    check_periodic(buffer.subspan(static_cast<std::size_t>(layout.begin(c)), static_cast<std::size_t>(layout.size(c))),
                   want, r);
  }
  return r;
}

std::uint64_t hash_floats(const float* data, std::int64_t n) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  for (std::int64_t i = 0; i < n * static_cast<std::int64_t>(sizeof(float)); ++i) {
    h ^= bytes[i];
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace dtsim::real
