// What names one communication for the ranks that take part in it, in both engines. SimGrid's
// Rendezvous (latest arrival, barriers) and CoreHolds (cores held while it runs), the analytical
// engine's Rendezvous (the parties that have arrived) and Transfers (a gossip's two directions) key
// their state by it, so that a hybrid plan's new kinds of communication add an alternative here
// instead of packing numbers into one key.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <variant>

namespace dtsim::cost {

// One collective of a group in one iteration: the group's members match on (group, seq).
struct CollectiveInstance {
  int group = 0;
  int seq = 0;  // CollectiveOp::seq: the n-th collective of the group in an iteration
  int iteration = 0;
  auto operator<=>(const CollectiveInstance&) const = default;
};

// One point-to-point message in one iteration: a SendOp on src matches the RecvOp on dst with the same tag.
struct MessageInstance {
  int src = 0;
  int dst = 0;
  int tag = 0;
  int iteration = 0;
  auto operator<=>(const MessageInstance&) const = default;
};

// The gossip exchange a rank starts with its peer of the iteration (Plan::gossip_peer).
struct GossipInstance {
  int rank = 0;
  int iteration = 0;
  auto operator<=>(const GossipInstance&) const = default;
};

using CommKey = std::variant<CollectiveInstance, MessageInstance, GossipInstance>;

// One side of a communication: a rank's op in one iteration (the analytical engine notes the
// collectives and sends past the host work they do before they communicate).
struct OpInstance {
  int rank = 0;
  int op = 0;
  int iteration = 0;
  auto operator<=>(const OpInstance&) const = default;
};

// Hashes a key's fields (and its alternative) for the hash maps that hold state per communication:
// a run has millions of them, and ordered maps spent a tenth of a large run's time in lookups.
struct CommKeyHash {
  static size_t mix(size_t h, int64_t v) {  // boost::hash_combine's recipe, on 64 bits
    return h ^ (static_cast<size_t>(v) + 0x9e3779b97f4a7c15ULL + (h << 12) + (h >> 4));
  }
  size_t operator()(const CollectiveInstance& k) const { return mix(mix(mix(1, k.group), k.seq), k.iteration); }
  size_t operator()(const MessageInstance& k) const { return mix(mix(mix(mix(2, k.src), k.dst), k.tag), k.iteration); }
  size_t operator()(const GossipInstance& k) const { return mix(mix(3, k.rank), k.iteration); }
  size_t operator()(const OpInstance& k) const { return mix(mix(mix(4, k.rank), k.op), k.iteration); }
  size_t operator()(const CommKey& k) const {
    return std::visit([this](const auto& alt) { return (*this)(alt); }, k);
  }
};

}  // namespace dtsim::cost
