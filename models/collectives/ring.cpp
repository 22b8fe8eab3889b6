// Ring algorithms over the ranks in their order 0 -> 1 -> ... -> N-1 -> 0.
//
//   ReduceScatter  N-1 rounds; in step s rank i sends chunk (i-s-1) mod N to i+1, which adds it
//                  to its own; rank i ends with chunk i reduced.           (N-1)a + (N-1)/N S/B
//   AllGather      N-1 rounds; in step s rank i forwards chunk (i-s) mod N.  (N-1)a + (N-1)/N S/B
//   AllReduce      ReduceScatter then AllGather on S/N chunks.        2(N-1)a + 2(N-1)/N S/B
//   Broadcast      a pipelined chain from the root: root -> root+1 -> ... -> root-1, the buffer
//                  cut into k = pipeline_chunks(S) chunks; in round t the link from chain
//                  position i to i+1 carries chunk t-i.                 (k+N-2)(a + S/(k B))
//   Reduce         the same chain run backwards, reducing on the way into the root.
//   AllToAll       not offered (supports() is false; use direct).
//
// With ranks on several nodes the ring and the chain cross node boundaries, and a round lasts
// as long as its slowest link class (see schedule_time); the closed forms count that exactly.
#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/collectives/detail.hpp"

namespace dtsim::collectives {
namespace {

// Whether the chain link from position i to i+1 (ranks root+i, root+i+1 mod N) crosses nodes.
bool chain_link_inter(const GroupShape& g, int i) {
  const int a = (g.root + i) % g.size;
  const int b = (g.root + i + 1) % g.size;
  return !g.same_node(a, b);
}

Schedule chain_schedule(const GroupShape& g, double bytes, bool reduce) {
  const int n = g.size;
  const int k = pipeline_chunks(bytes);
  Schedule s;
  s.chunks = k;
  if (n < 2) return s;
  const double chunk_bytes = bytes / k;
  s.rounds.resize(static_cast<std::size_t>(k + n - 2));
  for (int t = 0; t < k + n - 2; ++t) {
    auto& out = s.rounds[static_cast<std::size_t>(t)].transfers;
    for (int link = std::max(0, t - k + 1); link <= std::min(t, n - 2); ++link) {
      // Broadcast: link `link` runs from position link to link+1. Reduce: from n-1-link to n-2-link.
      const int from = reduce ? n - 1 - link : link;
      const int to = reduce ? n - 2 - link : link + 1;
      out.push_back({(g.root + from) % n, (g.root + to) % n, t - link, reduce, chunk_bytes});
    }
  }
  return s;
}

double chain_closed_form(const GroupShape& g, double bytes, const AlphaBeta& ab, bool reduce) {
  const int n = g.size;
  if (n < 2) return 0;
  const int k = pipeline_chunks(bytes);
  // inter_before[i]: how many of the physical links 0..i-1 cross nodes.
  std::vector<int> inter_before(1, 0);
  for (int i = 0; i < n - 1; ++i) inter_before.push_back(inter_before.back() + (chain_link_inter(g, i) ? 1 : 0));
  double total = 0;
  for (int t = 0; t < k + n - 2; ++t) {
    int lo = std::max(0, t - k + 1);
    int hi = std::min(t, n - 2);
    if (reduce) std::tie(lo, hi) = std::pair(n - 2 - hi, n - 2 - lo);
    const auto first = static_cast<std::size_t>(lo);
    const auto last = static_cast<std::size_t>(hi);
    const int inter = inter_before[last + 1] - inter_before[first];
    const int links = hi - lo + 1;
    total += round_time(ab, inter<links, inter> 0, bytes / k);
  }
  return total;
}

// The chain's flow phases without its schedule: round t uses the links in the window
// max(0, t-k+1) .. min(t, n-2), so consecutive rounds merge exactly when their windows agree
// (the full chain in the steady state, when k >= n-1).
std::vector<FlowPhase> chain_phases(const GroupShape& g, double bytes, bool reduce) {
  const int n = g.size;
  const int k = pipeline_chunks(bytes);
  PhaseBuilder builder;
  if (n < 2) return builder.take();
  const double chunk_bytes = bytes / k;
  auto window = [&](int t) { return std::pair(std::max(0, t - k + 1), std::min(t, n - 2)); };
  for (int t = 0; t < k + n - 2;) {
    const auto [lo, hi] = window(t);
    int rounds = 1;
    while (t + rounds < k + n - 2 && window(t + rounds) == std::pair(lo, hi)) ++rounds;
    std::vector<Flow> flows;
    flows.reserve(static_cast<std::size_t>(hi - lo + 1));
    for (int link = lo; link <= hi; ++link) {
      const int from = reduce ? n - 1 - link : link;
      const int to = reduce ? n - 2 - link : link + 1;
      flows.push_back({(g.root + from) % n, (g.root + to) % n, chunk_bytes});
    }
    builder.add_rounds(std::move(flows), rounds);
    t += rounds;
  }
  return builder.take();
}

class Ring final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "ring"; }
  std::string_view description() const override {
    return "ring reduce-scatter and all-gather; pipelined chain from the root for broadcast and reduce";
  }

  std::string unsupported_reason(CollectiveKind kind, const GroupShape&) const override {
    if (kind == CollectiveKind::AllToAll) return fmt::format("ring does not implement {}", collective_name(kind));
    return {};
  }

  Schedule schedule(CollectiveKind kind, const GroupShape& group, double bytes) const override {
    require(kind, group, bytes);
    if (kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce) {
      return chain_schedule(group, bytes, kind == CollectiveKind::Reduce);
    }
    const int n = group.size;
    Schedule s;
    s.chunks = n;
    std::vector<int> members(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) members[static_cast<std::size_t>(r)] = r;
    const double chunk_bytes = bytes / n;
    if (kind != CollectiveKind::AllGather) add_ring_phase(s.rounds, 0, members, PieceLayout{}, chunk_bytes, true);
    if (kind != CollectiveKind::ReduceScatter) {
      add_ring_phase(s.rounds, s.rounds.size(), members, PieceLayout{}, chunk_bytes, false);
    }
    return s;
  }

  // Without the N^2 schedule: in O(N), one phase of n-1 rounds (reduce-scatter, all-gather) or
  // 2(n-1) rounds (allreduce) of flows r -> r+1; the chain's phases from its windows of links.
  std::vector<FlowPhase> flow_phases(CollectiveKind kind, const GroupShape& group, double bytes) const override {
    require(kind, group, bytes);
    if (kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce) {
      return chain_phases(group, bytes, kind == CollectiveKind::Reduce);
    }
    const int n = group.size;
    std::vector<int> members(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) members[static_cast<std::size_t>(r)] = r;
    std::vector<Flow> flows;
    add_ring_flows(flows, members, bytes / n);
    PhaseBuilder builder;
    if (kind != CollectiveKind::AllGather) builder.add_rounds(flows, n - 1);
    if (kind != CollectiveKind::ReduceScatter) builder.add_rounds(flows, n - 1);
    return builder.take();
  }

  double closed_form(CollectiveKind kind, const GroupShape& group, double bytes, const AlphaBeta& ab) const override {
    require(kind, group, bytes);
    if (kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce) {
      return chain_closed_form(group, bytes, ab, kind == CollectiveKind::Reduce);
    }
    const int n = group.size;
    const int phases = kind == CollectiveKind::AllReduce ? 2 : 1;
    return phases * (n - 1) * round_time(ab, group.per_node > 1, group.nodes() > 1, bytes / n);
  }
};

}  // namespace

void add_ring_phase(std::vector<Round>& rounds, std::size_t first, const std::vector<int>& members,
                    const PieceLayout& pieces, double chunk_bytes, bool reduce) {
  const int n = static_cast<int>(members.size());
  if (n < 2) return;
  if (rounds.size() < first + static_cast<std::size_t>(n - 1)) rounds.resize(first + static_cast<std::size_t>(n - 1));
  for (int step = 0; step < n - 1; ++step) {
    auto& out = rounds[first + static_cast<std::size_t>(step)].transfers;
    out.reserve(out.size() + static_cast<std::size_t>(n * pieces.count));
    for (int i = 0; i < n; ++i) {
      const int piece = ((i - step - (reduce ? 1 : 0)) % n + n) % n;
      const int src = members[static_cast<std::size_t>(i)];
      const int dst = members[static_cast<std::size_t>((i + 1) % n)];
      for (int j = 0; j < pieces.count; ++j) {
        out.push_back(
            {src, dst, pieces.offset + piece * pieces.piece_stride + j * pieces.elem_stride, reduce, chunk_bytes});
      }
    }
  }
}

const CollectiveAlgorithm& ring_algorithm() {
  static const Ring instance;
  return instance;
}

}  // namespace dtsim::collectives
