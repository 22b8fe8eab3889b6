// Point-to-point transfers in the analytical engine (transfers.hpp).
#include "sim/analytical/transfers.hpp"

#include <algorithm>

namespace dtsim::analytical {

Transfers::Transfers(const ClusterSpec& cluster, const Plan& plan, const cost::CostModel& costs, CoreHolds& holds,
                     Contention& contention)
    : cluster_(cluster), plan_(plan), costs_(costs), holds_(holds), contention_(contention) {}

void Transfers::message(const cost::MessageInstance& m, double bytes, Party last, Party first) {
  const cost::TransferPath p = costs_.path(plan_.ranks[m.src].where, plan_.ranks[m.dst].where, bytes);
  Transfer t{p, bytes, last, first, first.rank, m.iteration};
  if (p.from.local < 0) t.copies_from = plan_.ranks[m.src].mirrored;
  if (p.to.local < 0) t.copies_to = plan_.ranks[m.dst].mirrored;
  start({t});
}

void Transfers::gossip(const cost::GossipInstance& g, Party p, int peer, double bytes) {
  const auto& me = plan_.ranks[g.rank].where;
  const auto& other = plan_.ranks[peer].where;
  const Party none{-1, -1};
  start({Transfer{costs_.path(me, other, bytes), bytes, p, none, peer, g.iteration},
         Transfer{costs_.path(other, me, bytes), bytes, p, none, peer, g.iteration}});
}

void Transfers::start(std::vector<Transfer> transfers) {
  if (!holds_.enabled()) {
    batch_.insert(batch_.end(), transfers.begin(), transfers.end());
    return;
  }
  const Transfer& t = transfers.front();
  holds_.wait({t.a.rank, t.peer},
              [this, transfers](double) { batch_.insert(batch_.end(), transfers.begin(), transfers.end()); });
}

void Transfers::flush(double now) {
  if (batch_.empty()) return;
  std::vector<PortFlow> flows;
  for (auto& t : batch_) {
    PortFlow f;
    f.id = next_flow_++;
    f.bytes = t.bytes;
    f.ports[0] = t.path.from;
    f.ports[1] = t.path.to;
    f.cost[0] = t.copies_from / t.path.from_bw;
    f.cost[1] = t.copies_to / t.path.to_bw;
    for (int k = 0; k < 2; ++k) {
      // A node's NICs with a bandwidth profile carry at the profile's rate.
      f.profiles[k] = f.ports[k].local < 0 ? cluster_.nic_profile_of(f.ports[k].node) : nullptr;
    }
    flows.push_back(f);
    t.start = now;
    if (holds_.enabled()) {
      for (int r : {t.a.rank, t.peer}) holds_.transfer_begin(r);
    }
    if (t.b.rank < 0) {
      // gossip: one op, two directions; it ends with the later
      if (exchanges_[cost::GossipInstance{t.a.rank, t.iteration}].left++ == 0) contention_.begin_comm(t.a.rank, now);
    } else {
      contention_.begin_comm(t.a.rank, now);
      contention_.begin_comm(t.b.rank, now);
    }
    flowing_.emplace(f.id, t);
  }
  share_.add(now, flows);
  batch_.clear();
}

void Transfers::drain(double now) {
  for (int id : share_.drain(now)) {
    const auto found = flowing_.find(id);
    const Transfer t = found->second;
    flowing_.erase(found);
    const double end = now + t.path.alpha;
    if (holds_.enabled()) {
      for (int r : {t.a.rank, t.peer}) holds_.transfer_end(r, end, now);
    }
    if (t.b.rank < 0) {
      const cost::GossipInstance g{t.a.rank, t.iteration};
      Exchange& x = exchanges_[g];
      x.last = std::max(x.last, end);
      if (--x.left == 0) {
        contention_.end_comm(x.last, t.a.rank, t.a.op, t.start);
        exchanges_.erase(g);
      }
      continue;
    }
    contention_.end_comm(end, t.a.rank, t.a.op, t.start);
    contention_.end_comm(end, t.b.rank, t.b.op, t.start);
  }
}

}  // namespace dtsim::analytical
