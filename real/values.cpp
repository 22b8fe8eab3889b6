// Filling and checking collective buffers: who owns which chunk at the start, and what every
// element must hold at the end, by collective kind (the chunk conventions of collective.hpp).
#include "real/values.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

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

void fill_message(std::span<float> out, int tag, int salt) {
  constexpr int kWrap = 1 << 24;
  if (out.size() > 0) out[0] = static_cast<float>(tag % kWrap);
  if (out.size() > 1) out[1] = static_cast<float>(salt % kWrap);
  if (out.size() > 2) fill_contributions(out.subspan(2), 2, tag, salt);
}

CheckResult check_message(std::span<const float> in, int tag, int salt) {
  std::vector<float> want(std::min<std::size_t>(in.size(), 2));
  fill_message(want, tag, salt);
  CheckResult r;
  for (std::size_t e = 0; e < want.size(); ++e) {
    r.checksum += in[e];
    r.expected += want[e];
    r.mismatched += in[e] != want[e];
    ++r.checked;
  }
  if (in.size() > 2) {
    float body[8];
    for (int j = 0; j < 8; ++j) body[j] = contribution(2 + j, tag, salt);
    check_periodic(in.subspan(2), body, r);
  }
  return r;
}

namespace {

// The GEMM's operands: small integers -2..2 (salt: the iteration, so every iteration differs).
float small(std::int64_t v) { return static_cast<float>(v % 5 - 2); }
float x_at(std::int64_t row, int q, int salt) { return small(3 * row + 7 * q + salt); }
float w_at(int q, int col, int salt) { return small(2 * q + 3 * col + 2 * salt + 1); }

// Elements [first, first + out.size()) of the product over the inner indices [q0, q1).
void gemm_elements(std::int64_t first, int q0, int q1, int salt, std::span<float> out) {
  const int k = q1 - q0;
  std::vector<float> w(static_cast<std::size_t>(k) * kGemmCols);
  for (int q = 0; q < k; ++q) {
    for (int j = 0; j < kGemmCols; ++j) w[static_cast<std::size_t>(q * kGemmCols + j)] = w_at(q0 + q, j, salt);
  }
  std::vector<float> x(static_cast<std::size_t>(k));
  std::int64_t row = -1;
  for (std::size_t idx = 0; idx < out.size(); ++idx) {
    const std::int64_t e = first + static_cast<std::int64_t>(idx);
    const std::int64_t i = e / kGemmCols;
    const int j = static_cast<int>(e % kGemmCols);
    if (i != row) {
      row = i;
      for (int q = 0; q < k; ++q) x[static_cast<std::size_t>(q)] = x_at(i, q0 + q, salt);
    }
    float sum = 0;
    for (int q = 0; q < k; ++q) sum += x[static_cast<std::size_t>(q)] * w[static_cast<std::size_t>(q * kGemmCols + j)];
    out[idx] = sum;
  }
}

}  // namespace

float gemm_partial(std::int64_t e, int r, int salt) {
  float v = 0;
  gemm_elements(e, r * kGemmInner, (r + 1) * kGemmInner, salt, std::span<float>(&v, 1));
  return v;
}

float gemm_full(std::int64_t e, int t, int salt) {
  float v = 0;
  gemm_elements(e, 0, t * kGemmInner, salt, std::span<float>(&v, 1));
  return v;
}

void fill_gemm_input(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me, int salt,
                     std::span<float> buffer) {
  for (int c = 0; c < layout.chunks; ++c) {
    const std::span<float> part =
        buffer.subspan(static_cast<std::size_t>(layout.begin(c)), static_cast<std::size_t>(layout.size(c)));
    if (reduces(kind)) {
      gemm_elements(layout.begin(c), me * kGemmInner, (me + 1) * kGemmInner, salt, part);
    } else if (kind == CollectiveKind::Broadcast ? me == group.root : owner(kind, layout, group, c) == me) {
      gemm_elements(layout.begin(c), 0, group.size * kGemmInner, salt, part);
    } else {
      std::fill(part.begin(), part.end(), kEmpty);
    }
  }
}

namespace {

// Whether rank `me` checks chunk c of a GEMM-valued collective's output.
bool checks_chunk(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me, int c) {
  if (kind == CollectiveKind::Reduce && me != group.root) return false;
  return kind != CollectiveKind::ReduceScatter || owner(kind, layout, group, c) == me;
}

// Compares the checked chunks of `buffer` with what they must hold: want_of(c), chunk c's values.
template <class WantOf>
CheckResult compare_chunks(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me,
                           std::span<const float> buffer, WantOf&& want_of) {
  CheckResult r;
  for (int c = 0; c < layout.chunks; ++c) {
    if (!checks_chunk(kind, layout, group, me, c)) continue;
    const std::span<const float> want = want_of(c);
    const std::span<const float> have = buffer.subspan(static_cast<std::size_t>(layout.begin(c)), want.size());
    for (std::size_t e = 0; e < want.size(); ++e) {
      r.checksum += have[e];
      r.expected += want[e];
      r.mismatched += have[e] != want[e];
    }
    r.checked += static_cast<std::int64_t>(want.size());
  }
  return r;
}

}  // namespace

CheckResult check_gemm_output(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me, int salt,
                              std::span<const float> buffer) {
  std::vector<float> want;
  return compare_chunks(kind, layout, group, me, buffer, [&](int c) {
    want.resize(static_cast<std::size_t>(layout.size(c)));
    gemm_elements(layout.begin(c), 0, group.size * kGemmInner, salt, want);
    return std::span<const float>(want);
  });
}

CheckResult compare_gemm_output(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me,
                                std::span<const float> want, std::span<const float> buffer) {
  return compare_chunks(kind, layout, group, me, buffer, [&](int c) {
    return want.subspan(static_cast<std::size_t>(layout.begin(c)), static_cast<std::size_t>(layout.size(c)));
  });
}

const GemmValues& gemm_values(CollectiveKind kind, const ChunkLayout& layout, const GroupShape& group, int me,
                              int salt) {
  // Everything the values depend on (fill_gemm_input, check_gemm_output): pure functions of this key.
  using Key = std::tuple<int, std::int64_t, int, int, int, int, int>;
  thread_local std::map<Key, GemmValues> kept;
  thread_local int kept_salt = 0;
  if (salt != kept_salt) {
    kept.clear();
    kept_salt = salt;
  }
  const Key key{static_cast<int>(kind), layout.elements, layout.chunks, group.size, group.per_node, group.root, me};
  auto [it, fresh] = kept.try_emplace(key);
  if (fresh) {
    const auto n = static_cast<std::size_t>(layout.elements);
    GemmValues& v = it->second;
    v.input.resize(n);
    v.output.assign(n, 0.0f);
    fill_gemm_input(kind, layout, group, me, salt, v.input);
    for (int c = 0; c < layout.chunks; ++c) {
      if (!checks_chunk(kind, layout, group, me, c)) continue;
      gemm_elements(layout.begin(c), 0, group.size * kGemmInner, salt,
                    std::span<float>(v.output).subspan(static_cast<std::size_t>(layout.begin(c)),
                                                       static_cast<std::size_t>(layout.size(c))));
    }
  }
  return it->second;
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
