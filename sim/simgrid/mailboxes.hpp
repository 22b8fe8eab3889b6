// SimGrid mailboxes by what they carry, made on first use. Only sizes matter: every message
// carries the same token.
#pragma once

#include <simgrid/s4u.hpp>

#include <compare>
#include <unordered_map>

#include "models/cost/comm_keys.hpp"

namespace dtsim::sg {

// What a mailbox carries: a collective's flows or point-to-point messages.
enum class Channel : char { Collective = 'c', Message = 'p' };

// A mailbox receives on `dst` what `src` sends on `channel` with `tag` (collectives use tag 0).
struct MailboxKey {
  Channel channel = Channel::Message;
  int dst = 0;
  int src = 0;
  int tag = 0;
  auto operator<=>(const MailboxKey&) const = default;
};

class Mailboxes {
 public:
  simgrid::s4u::Mailbox* at(const MailboxKey& key);
  static int* token();  // the payload of every message

 private:
  struct KeyHash {
    size_t operator()(const MailboxKey& k) const {
      using H = cost::CommKeyHash;
      return H::mix(H::mix(H::mix(H::mix(4, static_cast<char>(k.channel)), k.dst), k.src), k.tag);
    }
  };
  std::unordered_map<MailboxKey, simgrid::s4u::Mailbox*, KeyHash> boxes_;
};

}  // namespace dtsim::sg
