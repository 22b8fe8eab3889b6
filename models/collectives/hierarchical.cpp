// Hierarchical (two-level) rings for G = per_node ranks on each of M nodes, rank r = m*G + l
// being local rank l of node m. The buffer is cut into N = M*G chunks; chunk m*G + l belongs
// to rank m*G + l, and "column l" is the set of chunks {m*G + l : m} (S/G bytes).
//
//   node 0: [0 1 2 3]   node 1: [4 5 6 7]      G = 4, M = 2
//            | | | |             | | | |
//            +-|-|-|--- ring ----+ | | |       column rings: {0,4} {1,5} {2,6} {3,7}
//
//   AllReduce      1. intra-node ring ReduceScatter of columns: local rank l ends with column l
//                     summed over its node; G-1 rounds of S/G.
//                  2. inter-node ring AllReduce of column l among the ranks with local index l:
//                     2(M-1) rounds of S/N.
//                  3. intra-node ring AllGather of columns: G-1 rounds of S/G.
//                  2(G-1)(a_intra + S/(G B_intra)) + 2(M-1)(a_inter + S/(N B_inter))
//   ReduceScatter  steps 1 and 2 with the inter ring only reduce-scattering: rank r ends with
//                  chunk r.   (G-1)(a_intra + S/(G B_intra)) + (M-1)(a_inter + S/(N B_inter))
//   AllGather      the inter ring all-gathers column l, then step 3; same time as ReduceScatter.
//   Broadcast, Reduce, AllToAll: not offered (supports() is false; the error names the algorithms that are).
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/collectives/detail.hpp"

namespace dtsim::collectives {
namespace {

// Adds one intra-node ring phase on every node, side by side, starting at round `first`.
void add_intra_phase(Schedule& s, const GroupShape& g, std::size_t first, double chunk_bytes, bool reduce) {
  const int m_count = g.nodes();
  const PieceLayout columns{0, 1, m_count, g.per_node};
  std::vector<int> members(static_cast<std::size_t>(g.per_node));
  for (int m = 0; m < m_count; ++m) {
    for (int l = 0; l < g.per_node; ++l) members[static_cast<std::size_t>(l)] = m * g.per_node + l;
    add_ring_phase(s.rounds, first, members, columns, chunk_bytes, reduce);
  }
}

// Adds one inter-node ring phase on every column, side by side, starting at round `first`.
void add_inter_phase(Schedule& s, const GroupShape& g, std::size_t first, double chunk_bytes, bool reduce) {
  std::vector<int> members(static_cast<std::size_t>(g.nodes()));
  for (int l = 0; l < g.per_node; ++l) {
    for (int m = 0; m < g.nodes(); ++m) members[static_cast<std::size_t>(m)] = m * g.per_node + l;
    add_ring_phase(s.rounds, first, members, PieceLayout{l, g.per_node, 1, 0}, chunk_bytes, reduce);
  }
}

// One round of the intra-node rings, side by side: each ring link carries `chunks` chunks.
std::vector<Flow> intra_flows(const GroupShape& g, double chunk_bytes, int chunks) {
  std::vector<Flow> flows;
  std::vector<int> members(static_cast<std::size_t>(g.per_node));
  const double bytes = repeated_sum(chunk_bytes, chunks);
  for (int m = 0; m < g.nodes(); ++m) {
    for (int l = 0; l < g.per_node; ++l) members[static_cast<std::size_t>(l)] = m * g.per_node + l;
    add_ring_flows(flows, members, bytes);
  }
  return flows;
}

// One round of the inter-node rings, one per column, side by side: one chunk per ring link.
std::vector<Flow> inter_flows(const GroupShape& g, double chunk_bytes) {
  std::vector<Flow> flows;
  std::vector<int> members(static_cast<std::size_t>(g.nodes()));
  for (int l = 0; l < g.per_node; ++l) {
    for (int m = 0; m < g.nodes(); ++m) members[static_cast<std::size_t>(m)] = m * g.per_node + l;
    add_ring_flows(flows, members, chunk_bytes);
  }
  return flows;
}

class Hierarchical final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "hierarchical"; }
  std::string_view description() const override {
    return "intra-node ring reduce-scatter, inter-node ring allreduce per local rank, intra-node ring all-gather";
  }

  std::string unsupported_reason(CollectiveKind kind, const GroupShape&) const override {
    if (kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce || kind == CollectiveKind::AllToAll) {
      return fmt::format("hierarchical does not implement {}", collective_name(kind));
    }
    return {};
  }

  Schedule schedule(CollectiveKind kind, const GroupShape& group, double bytes) const override {
    require(kind, group, bytes);
    Schedule s;
    s.chunks = group.size;
    const std::size_t intra_rounds = static_cast<std::size_t>(group.per_node - 1);
    const std::size_t inter_rounds = static_cast<std::size_t>(group.nodes() - 1);
    const double chunk_bytes = bytes / group.size;
    if (kind == CollectiveKind::AllGather) {
      add_inter_phase(s, group, 0, chunk_bytes, false);
      add_intra_phase(s, group, inter_rounds, chunk_bytes, false);
      return s;
    }
    add_intra_phase(s, group, 0, chunk_bytes, true);
    add_inter_phase(s, group, intra_rounds, chunk_bytes, true);
    if (kind == CollectiveKind::AllReduce) {
      add_inter_phase(s, group, intra_rounds + inter_rounds, chunk_bytes, false);
      add_intra_phase(s, group, intra_rounds + 2 * inter_rounds, chunk_bytes, false);
    }
    return s;
  }

  // Without the schedule (N^2 transfers in its intra-node phases: N/G chunks per ring link):
  // O(N) flows in at most four phases, fewer where consecutive ones use the same pairs (one node:
  // the intra-node reduce-scatter and all-gather merge; the inter-node ones always do).
  std::vector<FlowPhase> flow_phases(CollectiveKind kind, const GroupShape& group, double bytes) const override {
    require(kind, group, bytes);
    const int intra_rounds = group.per_node - 1;
    const int inter_rounds = group.nodes() - 1;
    const double chunk_bytes = bytes / group.size;
    const std::vector<Flow> intra = intra_flows(group, chunk_bytes, group.nodes());
    const std::vector<Flow> inter = inter_flows(group, chunk_bytes);
    PhaseBuilder builder;
    if (kind == CollectiveKind::AllGather) {
      builder.add_rounds(inter, inter_rounds);
      builder.add_rounds(intra, intra_rounds);
      return builder.take();
    }
    builder.add_rounds(intra, intra_rounds);
    builder.add_rounds(inter, inter_rounds);
    if (kind == CollectiveKind::AllReduce) {
      builder.add_rounds(inter, inter_rounds);
      builder.add_rounds(intra, intra_rounds);
    }
    return builder.take();
  }

  double closed_form(CollectiveKind kind, const GroupShape& group, double bytes, const AlphaBeta& ab) const override {
    require(kind, group, bytes);
    const int g = group.per_node;
    const int m = group.nodes();
    const double one_way =
        (g - 1) * class_time(ab, false, bytes / g) + (m - 1) * class_time(ab, true, bytes / group.size);
    return kind == CollectiveKind::AllReduce ? 2 * one_way : one_way;
  }
};

}  // namespace

const CollectiveAlgorithm& hierarchical_algorithm() {
  static const Hierarchical instance;
  return instance;
}

}  // namespace dtsim::collectives
