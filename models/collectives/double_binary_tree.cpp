// NCCL-style double binary tree for AllReduce, Reduce and Broadcast. Ranks are taken relative
// to the root, position p = r - root mod N (AllReduce uses rank 0 as root). Tree A is the
// in-order binary tree of NCCL's btree: the parent of p is (p ^ b) | 2b for b the lowest set
// bit of p, or p ^ b when that is >= N; so odd positions are leaves, even ones inner nodes,
// and position 0 has one child. Tree B is tree A relabelled so that its leaves are (almost)
// tree A's inner nodes: p -> N - p for odd N, p -> p + 1 (and N-1 -> 1) for even N, 0 fixed.
//
//   N = 8, tree A:        0          tree B:       0
//                         4                        5
//                      2     6                  3     7
//                     1 3   5 7                2 4   6 1
//
// Every rank then has at most two children over both trees, so it sends and receives at most
// two chunks per round. Each tree carries half of the buffer, cut into k = pipeline_chunks(S/2)
// chunks of c = S/(2k) bytes (tree A chunks 0..k-1, tree B k..2k-1); both trees run side by side.
//   reduce phase     a node of height h sends chunk j to its parent in round j + h, after
//                    its children (heights < h) have sent theirs;          k + H - 1 rounds
//   broadcast phase  a node of depth d receives chunk j from its parent in round j + d - 1
// H = ceil(log2 N) is the height of both trees. Reduce = the reduce phase, Broadcast = the
// broadcast phase, AllReduce = reduce then broadcast. Closed form, with P phases:
//   P (k + H - 1) (a + S/(k B))
// counting every round at its steady-state load 2c (on nodes, the slowest class the trees
// use). The alpha part is exact; the rounds filling the pipeline may carry only c, so
// schedule_time lies between this and P (H - 1) c / B below it (the tests find it equal when
// k >= 2 and N != 3, for one class of links). ReduceScatter, AllGather and AllToAll are not
// implemented here.
#include <algorithm>
#include <bit>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/collectives/detail.hpp"

namespace dtsim::collectives {
namespace {

// The two trees over positions 0..n-1: parent (-1 for the root), height and depth per position.
struct Tree {
  std::vector<int> parent, height, depth;
};

int btree_parent(int p, int n) {
  const int b = p & -p;
  const int up = (p ^ b) | (b << 1);
  return up < n ? up : p ^ b;
}

Tree tree_a(int n) {
  Tree t{std::vector<int>(static_cast<std::size_t>(n), -1), std::vector<int>(static_cast<std::size_t>(n), 0),
         std::vector<int>(static_cast<std::size_t>(n), 0)};
  int top = 1;
  while (top * 2 < n) top *= 2;
  // A parent's lowest set bit is above its children's, so lowest bit ascending visits children
  // first (for heights) and descending visits parents first (for depths).
  for (int b = 1; b < n; b *= 2) {
    for (int p = b; p < n; p += 2 * b) {
      const auto q = static_cast<std::size_t>(btree_parent(p, n));
      t.parent[static_cast<std::size_t>(p)] = static_cast<int>(q);
      t.height[q] = std::max(t.height[q], t.height[static_cast<std::size_t>(p)] + 1);
    }
  }
  for (int b = top; b >= 1; b /= 2) {
    for (int p = b; p < n; p += 2 * b) {
      const auto q = static_cast<std::size_t>(t.parent[static_cast<std::size_t>(p)]);
      t.depth[static_cast<std::size_t>(p)] = t.depth[q] + 1;
    }
  }
  return t;
}

int relabel(int p, int n) {
  if (p == 0) return 0;
  if (n % 2 == 1) return n - p;
  return p == n - 1 ? 1 : p + 1;
}

Tree tree_b(const Tree& a, int n) {
  Tree t{std::vector<int>(static_cast<std::size_t>(n), -1), std::vector<int>(static_cast<std::size_t>(n), 0),
         std::vector<int>(static_cast<std::size_t>(n), 0)};
  for (int p = 0; p < n; ++p) {
    const auto q = static_cast<std::size_t>(relabel(p, n));
    const auto from = static_cast<std::size_t>(p);
    t.parent[q] = p == 0 ? -1 : relabel(a.parent[from], n);
    t.height[q] = a.height[from];
    t.depth[q] = a.depth[from];
  }
  return t;
}

int tree_height(int n) { return std::bit_width(static_cast<unsigned>(n - 1)); }  // ceil(log2 n)

class DoubleBinaryTree final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "double_binary_tree"; }
  std::string_view description() const override {
    return "two complementary pipelined binary trees, each carrying half the buffer (NCCL's double binary tree)";
  }

  std::string unsupported_reason(CollectiveKind kind, const GroupShape&) const override {
    if (kind == CollectiveKind::AllReduce || kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce) {
      return {};
    }
    return fmt::format("double_binary_tree does not implement {}", collective_name(kind));
  }

  Schedule schedule(CollectiveKind kind, const GroupShape& group, double bytes) const override {
    require(kind, group, bytes);
    const int n = group.size;
    const int k = pipeline_chunks(bytes / 2);
    Schedule s;
    s.chunks = 2 * k;
    if (n < 2) return s;
    const int root = kind == CollectiveKind::AllReduce ? 0 : group.root;
    const bool up = kind != CollectiveKind::Broadcast;
    const bool down = kind != CollectiveKind::Reduce;
    const int phase_rounds = k + tree_height(n) - 1;
    const int rounds = (up && down ? 2 : 1) * phase_rounds;
    s.rounds.resize(static_cast<std::size_t>(rounds));
    const Tree a = tree_a(n);
    const Tree b = tree_b(a, n);
    const double chunk_bytes = bytes / (2 * k);
    auto rank = [&](int p) { return (root + p) % n; };
    for (int which = 0; which < 2; ++which) {
      const Tree& t = which == 0 ? a : b;
      for (int p = 1; p < n; ++p) {
        const auto at = static_cast<std::size_t>(p);
        for (int j = 0; j < k; ++j) {
          const int chunk = which * k + j;
          if (up) {
            const int round = j + t.height[at];
            s.rounds[static_cast<std::size_t>(round)].transfers.push_back(
                {rank(p), rank(t.parent[at]), chunk, true, chunk_bytes});
          }
          if (down) {
            const int round = (up ? phase_rounds : 0) + j + t.depth[at] - 1;
            s.rounds[static_cast<std::size_t>(round)].transfers.push_back(
                {rank(t.parent[at]), rank(p), chunk, false, chunk_bytes});
          }
        }
      }
    }
    return s;
  }

  // The schedule holds 2k(N-1) transfers per phase (400 MB for an AllReduce of N = 16384 and
  // k = 256; the default path peaks near 670 MB); the phases come from the trees instead. In
  // round t of a phase the edge above position p carries a chunk when its level (height going
  // up, depth - 1 going down) lies in [t-k+1, t], clipped to the levels 0..H-1: rounds with the
  // same window send the same flows, so the pipeline's fill and drain rounds are single phases
  // and its steady-state rounds merge into one.
  std::vector<FlowPhase> flow_phases(CollectiveKind kind, const GroupShape& group, double bytes) const override {
    require(kind, group, bytes);
    const int n = group.size;
    PhaseBuilder builder;
    if (n < 2) return builder.take();
    const int k = pipeline_chunks(bytes / 2);
    const int root = kind == CollectiveKind::AllReduce ? 0 : group.root;
    const int phase_rounds = k + tree_height(n) - 1;
    const double chunk_bytes = bytes / (2 * k);
    const Tree a = tree_a(n);
    const Tree b = tree_b(a, n);
    auto window = [&](int t) { return std::pair(std::max(0, t - k + 1), std::min(t, phase_rounds - k)); };
    auto add_tree_phase = [&](bool up) {
      for (int t = 0; t < phase_rounds;) {
        const auto [lo, hi] = window(t);
        int rounds = 1;
        while (t + rounds < phase_rounds && window(t + rounds) == std::pair(lo, hi)) ++rounds;
        std::vector<Flow> flows;
        for (const Tree* tree : {&a, &b}) {
          for (int p = 1; p < n; ++p) {
            const auto at = static_cast<std::size_t>(p);
            const int level = up ? tree->height[at] : tree->depth[at] - 1;
            if (level < lo || level > hi) continue;
            const int child = (root + p) % n;
            const int parent = (root + tree->parent[at]) % n;
            flows.push_back(up ? Flow{child, parent, chunk_bytes} : Flow{parent, child, chunk_bytes});
          }
        }
        builder.add_rounds(std::move(flows), rounds);
        t += rounds;
      }
    };
    if (kind != CollectiveKind::Broadcast) add_tree_phase(true);
    if (kind != CollectiveKind::Reduce) add_tree_phase(false);
    return builder.take();
  }

  double closed_form(CollectiveKind kind, const GroupShape& group, double bytes, const AlphaBeta& ab) const override {
    require(kind, group, bytes);
    const int n = group.size;
    if (n < 2) return 0;
    const int k = pipeline_chunks(bytes / 2);
    const int phases = kind == CollectiveKind::AllReduce ? 2 : 1;
    // Which link classes the edges of the two trees use.
    const int root = kind == CollectiveKind::AllReduce ? 0 : group.root;
    bool intra = false;
    bool inter = false;
    const Tree a = tree_a(n);
    const Tree b = tree_b(a, n);
    for (const Tree* t : {&a, &b}) {
      for (int p = 1; p < n; ++p) {
        const bool same = group.same_node((root + p) % n, (root + t->parent[static_cast<std::size_t>(p)]) % n);
        intra = intra || same;
        inter = inter || !same;
      }
    }
    return phases * (k + tree_height(n) - 1) * round_time(ab, intra, inter, bytes / k);
  }
};

}  // namespace

const CollectiveAlgorithm& double_binary_tree_algorithm() {
  static const DoubleBinaryTree instance;
  return instance;
}

}  // namespace dtsim::collectives
