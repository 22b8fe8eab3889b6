// Filling and checking collective buffers: who owns which chunk at the start, and what every
// element must hold at the end, by collective kind (the chunk conventions of collective.hpp).
#include "real/values.hpp"

#include <algorithm>

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

void fill_input(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me, int salt,
                std::int64_t offset, std::span<float> buffer) {
  const bool everything = reduces(kind) || (kind == CollectiveKind::Broadcast && me == group.root);
  for (int c = 0; c < layout.chunks; ++c) {
    const bool mine = everything || ((kind == CollectiveKind::AllGather || kind == CollectiveKind::AllToAll) &&
                                     owner(kind, layout, group, c) == me);
    for (std::int64_t e = layout.begin(c); e < layout.begin(c + 1); ++e) {
      buffer[static_cast<std::size_t>(e)] = mine ? contribution(offset + e, me, salt) : kEmpty;
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
    for (std::int64_t e = layout.begin(c); e < layout.begin(c + 1); ++e) {
      float want = 0;
      if (reduces(kind)) {
        want = sums.at(offset + e);
      } else {
        want = contribution(offset + e, kind == CollectiveKind::Broadcast ? group.root : own, salt);
      }
      const float have = buffer[static_cast<std::size_t>(e)];
      ++r.checked;
      if (have != want) ++r.mismatched;
      r.checksum += have;
      r.expected += want;
    }
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
