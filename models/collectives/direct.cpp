// Direct algorithms: every rank talks to every other rank itself, in N-1 rounds of pairwise
// shifts; in round s (1..N-1) rank r sends to r+s and receives from r-s (mod N), so each rank
// drives one message each way per round:
//
//   s=1: 0->1 1->2 2->3 3->0     s=2: 0->2 1->3 2->0 3->1     s=3: 0->3 1->0 2->1 3->2
//
//   AllToAll       rank r sends its piece for r+s (S/N).                (N-1)(a + S/(N B))
//   ReduceScatter  rank r sends its contribution to chunk r+s, which r+s adds. (same)
//   AllGather      rank r sends its own chunk to r+s.                   (same)
//   AllReduce      ReduceScatter then AllGather.                        2(N-1)(a + S/(N B))
//   Broadcast, Reduce: not offered (supports() is false; the error names the algorithms that are).
//
// On nodes of G ranks round s has intra-node pairs exactly when s < G or s > N-G, and
// inter-node pairs whenever there is more than one node; a round lasts as long as its slowest
// class (see schedule_time).
#include <string>

#include <fmt/format.h>

#include "models/collectives/detail.hpp"

namespace dtsim::collectives {
namespace {

enum class Piece { ToPeer, OwnChunk, PeerChunk };

void add_shifts(Schedule& s, int n, double piece_bytes, Piece piece, bool reduce) {
  for (int shift = 1; shift < n; ++shift) {
    Round& round = s.rounds.emplace_back();
    round.transfers.reserve(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
      const int peer = (r + shift) % n;
      const int chunk = piece == Piece::ToPeer ? r * n + peer : piece == Piece::OwnChunk ? r : peer;
      round.transfers.push_back({r, peer, chunk, reduce, piece_bytes});
    }
  }
}

class Direct final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "direct"; }
  std::string_view description() const override {
    return "every rank exchanges with every other in N-1 rounds of pairwise shifts";
  }

  std::string unsupported_reason(CollectiveKind kind, const GroupShape&) const override {
    if (kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce) {
      return fmt::format("direct does not implement {}", collective_name(kind));
    }
    return {};
  }

  Schedule schedule(CollectiveKind kind, const GroupShape& group, double bytes) const override {
    require(kind, group, bytes);
    const int n = group.size;
    Schedule s;
    const double piece_bytes = bytes / n;
    if (kind == CollectiveKind::AllToAll) {
      s.chunks = n * n;
      add_shifts(s, n, piece_bytes, Piece::ToPeer, false);
      return s;
    }
    s.chunks = n;
    if (kind != CollectiveKind::AllGather) add_shifts(s, n, piece_bytes, Piece::PeerChunk, true);
    if (kind != CollectiveKind::ReduceScatter) add_shifts(s, n, piece_bytes, Piece::OwnChunk, false);
    return s;
  }

  double closed_form(CollectiveKind kind, const GroupShape& group, double bytes, const AlphaBeta& ab) const override {
    require(kind, group, bytes);
    const int n = group.size;
    const int g = group.per_node;
    double one_way = 0;
    for (int shift = 1; shift < n; ++shift) {
      one_way += round_time(ab, g > 1 && (shift < g || shift > n - g), group.nodes() > 1, bytes / n);
    }
    return kind == CollectiveKind::AllReduce ? 2 * one_way : one_way;
  }
};

}  // namespace

const CollectiveAlgorithm& direct_algorithm() {
  static const Direct instance;
  return instance;
}

}  // namespace dtsim::collectives
