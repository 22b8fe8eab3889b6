// What names one communication for the actors that take part in it. Rendezvous (latest arrival,
// barriers) and CoreHolds (cores held while it runs) key their state by it, so that a hybrid plan's
// new kinds of communication add an alternative here instead of packing numbers into one key.
#pragma once

#include <compare>
#include <variant>

namespace dtsim::sg {

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

}  // namespace dtsim::sg
