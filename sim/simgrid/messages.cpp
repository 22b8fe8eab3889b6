// Point-to-point on SimGrid: a mailbox put and get, or a transfer between endpoints between two
// barriers of its parties; gossip as two asynchronous transfers.
#include "sim/simgrid/messages.hpp"

#include <cstdint>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace dtsim::sg {

using cost::MessageInstance;

Messages::Messages(const Platform& platform, Mailboxes& mailboxes, Rendezvous& rendezvous, SimGridStats& stats)
    : platform_(platform), mailboxes_(mailboxes), rendezvous_(rendezvous), stats_(stats) {}

void Messages::transfer(const MessageInstance& m, double bytes, Side side) {
  if (platform_.p2p_hosts.empty()) {
    sg4::Mailbox* box = mailboxes_.at({Channel::Message, m.dst, m.src, m.tag});
    if (side == Side::Send) {
      box->put(Mailboxes::token(), bytes);
      ++stats_.activities;
    } else {
      box->get<int>();
    }
    return;
  }
  rendezvous_.meet(m, Rendezvous::Moment::Start, 2);
  if (side == Side::Send) {
    sg4::Comm::sendto(platform_.p2p_hosts[m.src], platform_.p2p_hosts[m.dst], static_cast<uint64_t>(bytes));
    ++stats_.activities;
  }
  rendezvous_.meet(m, Rendezvous::Moment::End, 2);
}

void Messages::exchange(int rank, int peer, double bytes) {
  const auto& ends = platform_.p2p_hosts.empty() ? platform_.rank_hosts : platform_.p2p_hosts;
  sg4::Host* me = ends[rank];
  sg4::Host* other = ends[peer];
  const auto size = static_cast<uint64_t>(bytes);
  std::vector<sg4::CommPtr> comms{sg4::Comm::sendto_async(me, other, size), sg4::Comm::sendto_async(other, me, size)};
  stats_.activities += 2;
  sg4::Comm::wait_all(comms);
}

}  // namespace dtsim::sg
