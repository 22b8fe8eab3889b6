// SimGrid mailboxes by what they carry, made on first use. Only sizes matter: every message
// carries the same token.
#pragma once

#include <simgrid/s4u.hpp>

#include <compare>
#include <map>

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
  std::map<MailboxKey, simgrid::s4u::Mailbox*> boxes_;
};

}  // namespace dtsim::sg
