// Recursive halving-doubling for N a power of two, nearest partner first (on nodes of G ranks
// the big early messages stay inside a node):
//
//   ReduceScatter  log2 N steps; in step k rank r pairs with r ^ 2^k, keeps the chunks whose
//                  bit k matches its own and sends the other half of what it holds (S/2^(k+1)):
//                    k=0: 0<->1 2<->3 ...   k=1: 0<->2 1<->3 ...   k=2: 0<->4 ...
//                  rank r ends with chunk r reduced.             log2(N) a + (N-1)/N S/B
//   AllGather      the same steps backwards (k = log2 N - 1 .. 0), sending all it holds.
//   AllReduce      ReduceScatter then AllGather.                 2 log2(N) a + 2(N-1)/N S/B
//   Broadcast      binomial tree from the root, in ranks relative to the root v = r - root mod N:
//                  in step k every v < 2^k sends the whole buffer to v + 2^k.   log2(N)(a + S/B)
//   Reduce         the binomial tree backwards: in step k (from log2 N - 1 down) every v in
//                  [2^k, 2^(k+1)) adds its partial sum into v - 2^k.            log2(N)(a + S/B)
//   AllToAll       not offered (supports() is false; use direct).
//
// Since N and G are powers of two, partner r ^ 2^k is on the same node exactly when 2^k < G.
#include <bit>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/collectives/detail.hpp"

namespace dtsim::collectives {
namespace {

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

int log2_of(int n) { return std::bit_width(static_cast<unsigned>(n - 1)); }  // for n a power of two

// One halving (reduce = true) or doubling step at distance d: every rank sends what it holds
// that its partner r ^ d keeps (halving) or everything it holds (doubling).
void add_step(Schedule& s, int n, int d, double chunk_bytes, bool reduce) {
  Round& round = s.rounds.emplace_back();
  round.transfers.reserve(static_cast<std::size_t>(n * n / (2 * d)));
  for (int r = 0; r < n; ++r) {
    const int partner = r ^ d;
    // Held before the step: chunks c == r mod d (halving) or c == r mod 2d (doubling).
    const int stride = 2 * d;
    const int low = reduce ? (partner & (stride - 1)) : (r & (stride - 1));
    for (int c = low; c < n; c += stride) round.transfers.push_back({r, partner, c, reduce, chunk_bytes});
  }
}

// One halving or doubling step at distance d as flows: r -> r ^ d carrying the n / 2d chunks
// add_step sends as separate transfers.
std::vector<Flow> step_flows(int n, int d, double chunk_bytes) {
  const double bytes = repeated_sum(chunk_bytes, n / (2 * d));
  std::vector<Flow> flows;
  flows.reserve(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) flows.push_back({r, r ^ d, bytes});
  return flows;
}

class HalvingDoubling final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "halving_doubling"; }
  std::string_view description() const override {
    return "recursive halving then doubling (N a power of two); binomial tree for broadcast and reduce";
  }

  std::string unsupported_reason(CollectiveKind kind, const GroupShape& group) const override {
    if (kind == CollectiveKind::AllToAll) {
      return fmt::format("halving_doubling does not implement {}", collective_name(kind));
    }
    if (!power_of_two(group.size)) {
      return fmt::format("halving_doubling needs a power-of-two group size (got {})", group.size);
    }
    return {};
  }

  Schedule schedule(CollectiveKind kind, const GroupShape& group, double bytes) const override {
    require(kind, group, bytes);
    const int n = group.size;
    const int steps = log2_of(n);
    Schedule s;
    if (kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce) {
      const bool reduce = kind == CollectiveKind::Reduce;
      for (int i = 0; i < steps; ++i) {
        const int d = 1 << (reduce ? steps - 1 - i : i);
        Round& round = s.rounds.emplace_back();
        for (int v = 0; v < d; ++v) {
          const int low = (group.root + v) % n;
          const int high = (group.root + v + d) % n;
          round.transfers.push_back(reduce ? Transfer{high, low, 0, true, bytes}
                                           : Transfer{low, high, 0, false, bytes});
        }
      }
      return s;
    }
    s.chunks = n;
    const double chunk_bytes = bytes / n;
    if (kind != CollectiveKind::AllGather) {
      for (int k = 0; k < steps; ++k) add_step(s, n, 1 << k, chunk_bytes, true);
    }
    if (kind != CollectiveKind::ReduceScatter) {
      for (int k = steps - 1; k >= 0; --k) add_step(s, n, 1 << k, chunk_bytes, false);
    }
    return s;
  }

  // Reduce-scatter and all-gather hold N^2 transfers (N/2d chunks per pair at distance d); their
  // flows, N per step, are built directly. Each step pairs ranks at its own distance, so only the
  // last halving and first doubling step of AllReduce (both at N/2) merge. The binomial trees'
  // schedules are O(N): the default.
  std::vector<FlowPhase> flow_phases(CollectiveKind kind, const GroupShape& group, double bytes) const override {
    if (kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce) {
      return CollectiveAlgorithm::flow_phases(kind, group, bytes);
    }
    require(kind, group, bytes);
    const int n = group.size;
    const int steps = log2_of(n);
    const double chunk_bytes = bytes / n;
    PhaseBuilder builder;
    if (kind != CollectiveKind::AllGather) {
      for (int k = 0; k < steps; ++k) builder.add_rounds(step_flows(n, 1 << k, chunk_bytes), 1);
    }
    if (kind != CollectiveKind::ReduceScatter) {
      for (int k = steps - 1; k >= 0; --k) builder.add_rounds(step_flows(n, 1 << k, chunk_bytes), 1);
    }
    return builder.take();
  }

  double closed_form(CollectiveKind kind, const GroupShape& group, double bytes, const AlphaBeta& ab) const override {
    require(kind, group, bytes);
    const int n = group.size;
    const int steps = log2_of(n);
    double total = 0;
    if (kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce) {
      for (int k = 0; k < steps; ++k) {
        const int d = 1 << k;
        bool intra = false;
        bool inter = false;
        for (int v = 0; v < d; ++v) {
          const bool same = group.same_node((group.root + v) % n, (group.root + v + d) % n);
          intra = intra || same;
          inter = inter || !same;
        }
        total += round_time(ab, intra, inter, bytes);
      }
      return total;
    }
    const int phases = kind == CollectiveKind::AllReduce ? 2 : 1;
    for (int k = 0; k < steps; ++k) {
      const int d = 1 << k;
      total += phases * class_time(ab, d >= group.per_node, bytes / (2.0 * d));
    }
    return total;
  }
};

}  // namespace

const CollectiveAlgorithm& halving_doubling_algorithm() {
  static const HalvingDoubling instance;
  return instance;
}

}  // namespace dtsim::collectives
