// Mailboxes named after their key ("p3:0:7": messages to rank 3 from rank 0 with tag 7).
#include "sim/simgrid/mailboxes.hpp"

#include <fmt/format.h>

namespace dtsim::sg {

simgrid::s4u::Mailbox* Mailboxes::at(const MailboxKey& key) {
  simgrid::s4u::Mailbox*& box = boxes_[key];
  if (!box)
    box = simgrid::s4u::Mailbox::by_name(
        fmt::format("{}{}:{}:{}", static_cast<char>(key.channel), key.dst, key.src, key.tag));
  return box;
}

int* Mailboxes::token() {
  static int token = 0;
  return &token;
}

}  // namespace dtsim::sg
