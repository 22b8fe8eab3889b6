// Point-to-point messages and gossip exchanges between ranks. A message goes over the ranks'
// mailboxes, or, when the platform gives ranks separate point-to-point endpoints
// (Platform::p2p_hosts), as a transfer between them that both sides meet for: it starts when
// both are there and both leave when it has arrived. Gossip sends both ways at once.
#pragma once

#include "models/cost/comm_keys.hpp"
#include "sim/simgrid/executor.hpp"
#include "sim/simgrid/mailboxes.hpp"
#include "sim/simgrid/platform.hpp"
#include "sim/simgrid/rendezvous.hpp"

namespace dtsim::sg {

// Which end of a message an actor is: the same path serves both.
enum class Side { Send, Receive };

class Messages {
 public:
  Messages(const Platform& platform, Mailboxes& mailboxes, Rendezvous& rendezvous, SimGridStats& stats);

  // Takes part in message `m` of `bytes` as its `side`; returns when the message has arrived.
  void transfer(const cost::MessageInstance& m, double bytes, Side side);
  // `rank` sends `bytes` to `peer` and receives as many back, both at once; the peer's communication
  // thread serves it, so no actor of the peer takes part.
  void exchange(int rank, int peer, double bytes);

 private:
  const Platform& platform_;
  Mailboxes& mailboxes_;
  Rendezvous& rendezvous_;
  SimGridStats& stats_;
};

}  // namespace dtsim::sg
