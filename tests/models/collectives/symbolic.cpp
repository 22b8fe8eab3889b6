// The symbolic executor of collective schedules used by the collectives tests.
#include "symbolic.hpp"

#include <set>
#include <utility>

#include <fmt/format.h>

namespace dtsim::test {
namespace {

// content[(rank * chunks + chunk) * ranks + contributor]: how often that contribution is in the copy.
struct State {
  int ranks = 0;
  int chunks = 0;
  std::vector<int> content;

  int* at(int rank, int chunk) {
    return content.data() +
           (static_cast<std::size_t>(rank) * static_cast<std::size_t>(chunks) + static_cast<std::size_t>(chunk)) *
               static_cast<std::size_t>(ranks);
  }
  bool holds(int rank, int chunk) {
    const int* c = at(rank, chunk);
    for (int i = 0; i < ranks; ++i) {
      if (c[i] != 0) return true;
    }
    return false;
  }
  // Whether the copy is exactly one contribution from each of `from` (all ranks if from < 0).
  bool is(int rank, int chunk, int from) {
    const int* c = at(rank, chunk);
    for (int i = 0; i < ranks; ++i) {
      if (c[i] != (from < 0 || i == from ? 1 : 0)) return false;
    }
    return true;
  }
};

int owner(int chunk, int chunks, int ranks) { return chunk / (chunks / ranks); }

}  // namespace

std::string verify_schedule(CollectiveKind kind, const GroupShape& group, const Schedule& schedule) {
  const int n = group.size;
  const int chunks = schedule.chunks;
  const bool gathered = kind == CollectiveKind::ReduceScatter || kind == CollectiveKind::AllGather;
  if (chunks < 1) return "no chunks";
  if (gathered && chunks % n != 0) return fmt::format("{} chunks do not split over {} ranks", chunks, n);
  if (kind == CollectiveKind::AllToAll && chunks != n * n) return fmt::format("alltoall with {} chunks", chunks);

  State state{n, chunks,
              std::vector<int>(
                  static_cast<std::size_t>(n) * static_cast<std::size_t>(chunks) * static_cast<std::size_t>(n), 0)};
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < chunks; ++c) {
      bool mine = true;
      if (kind == CollectiveKind::AllGather) mine = owner(c, chunks, n) == r;
      if (kind == CollectiveKind::Broadcast) mine = r == group.root;
      if (kind == CollectiveKind::AllToAll) mine = c / n == r;
      if (mine) state.at(r, c)[r] = 1;
    }
  }

  for (std::size_t i = 0; i < schedule.rounds.size(); ++i) {
    State next = state;
    std::set<std::pair<int, int>> overwritten;
    for (const Transfer& t : schedule.rounds[i].transfers) {
      if (t.src < 0 || t.src >= n || t.dst < 0 || t.dst >= n || t.src == t.dst) {
        return fmt::format("round {}: transfer {} -> {}", i, t.src, t.dst);
      }
      if (t.chunk < 0 || t.chunk >= chunks) return fmt::format("round {}: chunk {} out of range", i, t.chunk);
      if (!state.holds(t.src, t.chunk)) {
        return fmt::format("round {}: rank {} sends chunk {} it does not hold", i, t.src, t.chunk);
      }
      const int* from = state.at(t.src, t.chunk);
      int* to = next.at(t.dst, t.chunk);
      if (t.reduce) {
        for (int k = 0; k < n; ++k) to[k] += from[k];
      } else {
        if (!overwritten.insert({t.dst, t.chunk}).second) {
          return fmt::format("round {}: rank {} gets chunk {} twice", i, t.dst, t.chunk);
        }
        for (int k = 0; k < n; ++k) to[k] = from[k];
      }
      for (int k = 0; k < n; ++k) {
        if (to[k] > 1) return fmt::format("round {}: rank {} counts rank {} twice in chunk {}", i, t.dst, k, t.chunk);
      }
    }
    state = std::move(next);
  }

  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < chunks; ++c) {
      bool ok = true;
      switch (kind) {
        case CollectiveKind::AllReduce: ok = state.is(r, c, -1); break;
        case CollectiveKind::ReduceScatter: ok = owner(c, chunks, n) != r || state.is(r, c, -1); break;
        case CollectiveKind::AllGather: ok = state.is(r, c, owner(c, chunks, n)); break;
        case CollectiveKind::Broadcast: ok = state.is(r, c, group.root); break;
        case CollectiveKind::Reduce: ok = r != group.root || state.is(r, c, -1); break;
        case CollectiveKind::AllToAll: ok = c % n != r || state.is(r, c, c / n); break;
      }
      if (!ok) return fmt::format("at the end rank {} has a wrong chunk {}", r, c);
    }
  }
  return {};
}

std::vector<double> bytes_sent(const Schedule& schedule, int ranks) {
  std::vector<double> sent(static_cast<std::size_t>(ranks), 0.0);
  for (const Round& round : schedule.rounds) {
    for (const Transfer& t : round.transfers) sent[static_cast<std::size_t>(t.src)] += t.bytes;
  }
  return sent;
}

double total_bytes(const Schedule& schedule) {
  double total = 0;
  for (const Round& round : schedule.rounds) {
    for (const Transfer& t : round.transfers) total += t.bytes;
  }
  return total;
}

std::vector<GroupShape> shapes(const std::vector<int>& sizes, const std::vector<int>& per_node) {
  std::vector<GroupShape> out;
  for (int n : sizes) {
    for (int g : per_node) {
      if (n % g != 0) continue;
      for (int root : {0, 1, n / 2, n - 1}) {
        if (root >= n) continue;
        GroupShape shape{n, g, root};
        bool seen = false;
        for (const GroupShape& s : out) seen = seen || (s.size == n && s.per_node == g && s.root == root);
        if (!seen) out.push_back(shape);
      }
    }
  }
  return out;
}

}  // namespace dtsim::test
