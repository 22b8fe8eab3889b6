// Collectives on SimGrid: phases of flows from the algorithm's schedule (every round a message at
// step fidelity or with a calibrated platform, merged flows otherwise), sent and received over the
// collective mailboxes.
#include "sim/simgrid/collective_flows.hpp"

#include <xbt/config.hpp>

#include <algorithm>

#include "core/base/error.hpp"

namespace sg4 = simgrid::s4u;

namespace dtsim::sg {

CollectiveFlows::CollectiveFlows(const ClusterSpec& cluster, const Plan& plan, const cost::CostModel& costs,
                                 const Platform& platform, Fidelity fidelity, Mailboxes& mailboxes, SimGridStats& stats)
    : cluster_(cluster),
      plan_(plan),
      costs_(costs),
      platform_(platform),
      fidelity_(fidelity),
      mailboxes_(mailboxes),
      stats_(stats),
      latency_factor_(simgrid::config::get_value<double>("network/latency-factor")) {}

void CollectiveFlows::replay(int rank, const CollectiveOp& c) {
  const CommGroup& group = plan_.groups[c.group];
  const auto pos = std::lower_bound(group.ranks.begin(), group.ranks.end(), rank);
  if (pos == group.ranks.end() || *pos != rank)
    throw RuntimeError("simgrid engine: a rank outside its collective group");
  const int me = static_cast<int>(pos - group.ranks.begin());
  const Phases& rp = phases(c);
  if (rp.delay > 0) {
    sg4::this_actor::sleep_for(rp.delay);
    ++stats_.activities;
  }
  std::vector<sg4::CommPtr> comms;
  std::vector<int*> payloads;
  for (size_t p = 0; p < rp.phases.size(); ++p) {
    const FlowPhase& phase = rp.phases[p];
    comms.clear();
    payloads.assign(rp.in[p][me].size(), nullptr);
    double alpha = 0;
    for (int f : rp.out[p][me]) {
      const int dst = group.ranks[phase.flows[f].dst];
      comms.push_back(
          mailboxes_.at({Channel::Collective, dst, rank, 0})->put_async(Mailboxes::token(), phase.flows[f].bytes));
      alpha = std::max(alpha, latency(rank, dst));
    }
    for (size_t i = 0; i < rp.in[p][me].size(); ++i) {
      const int src = group.ranks[phase.flows[rp.in[p][me][i]].src];
      comms.push_back(mailboxes_.at({Channel::Collective, rank, src, 0})->get_async<int>(&payloads[i]));
      alpha = std::max(alpha, latency(src, rank));
    }
    stats_.activities += static_cast<long>(rp.out[p][me].size());
    sg4::Comm::wait_all(comms);
    // A phase stands for `rounds` rounds: the messages paid one latency, the other rounds pay theirs here.
    if (phase.rounds > 1 && alpha > 0) {
      sg4::this_actor::sleep_for((phase.rounds - 1) * alpha);
      ++stats_.activities;
    }
  }
}

const CollectiveFlows::Phases& CollectiveFlows::phases(const CollectiveOp& c) {
  const CommGroup& group = plan_.groups[c.group];
  auto& slot = phases_[PhasesKey{c.group, static_cast<int>(group.ranks.size()), c.kind, c.bytes}];
  if (slot) return *slot;
  const GroupShape shape{static_cast<int>(group.ranks.size()), group.per_node, 0};
  auto rp = std::make_unique<Phases>();
  // A calibrated platform's factors depend on each message's size, which flow fidelity's merged
  // flows (rounds x chunk bytes) would hide: with cluster.calibration every round is a message.
  const bool step = fidelity_ == Fidelity::Step || cluster_.calibration != nullptr;
  // strategy.allreduce.algorithm: nccl: NCCL's time on an idle fabric, at either fidelity.
  const std::optional<cost::CostModel::NcclReplay> nccl = costs_.nccl_replay(c);
  if (nccl && nccl->one_phase) {
    rp->phases = {one_phase(c.algorithm->flow_phases(c.kind, shape, c.bytes))};
  } else {
    rp->phases = step && !nccl ? step_phases(c.algorithm->schedule(c.kind, shape, c.bytes))
                               : c.algorithm->flow_phases(c.kind, shape, c.bytes);
  }
  // cluster.intra_node.collective_busbw: a flow inside a node crosses the intra link at the bandwidth
  // collectives of this size reach, as more bytes at the link's rate (the closed form's intra term).
  if (costs_.busbw_applies()) {
    const double stretch = cluster_.intra.rate / cluster_.intra_rate_for(c.bytes);
    for (FlowPhase& phase : rp->phases) {
      for (auto& f : phase.flows) {
        if (plan_.ranks[group.ranks[f.src]].where.node == plan_.ranks[group.ranks[f.dst]].where.node)
          f.bytes *= stretch;
      }
    }
  }
  if (nccl) {
    for (FlowPhase& phase : rp->phases) {
      for (auto& f : phase.flows) f.bytes *= nccl->stretch;
    }
    rp->delay = nccl->delay;
  }
  rp->out.assign(rp->phases.size(), std::vector<std::vector<int>>(shape.size));
  rp->in.assign(rp->phases.size(), std::vector<std::vector<int>>(shape.size));
  for (size_t p = 0; p < rp->phases.size(); ++p) {
    const auto& flows = rp->phases[p].flows;
    for (size_t f = 0; f < flows.size(); ++f) {
      rp->out[p][flows[f].src].push_back(static_cast<int>(f));
      rp->in[p][flows[f].dst].push_back(static_cast<int>(f));
    }
  }
  slot = std::move(rp);
  return *slot;
}

double CollectiveFlows::latency(int src, int dst) {
  auto [it, fresh] = latencies_.try_emplace({src, dst}, 0.0);
  if (fresh) {
    std::vector<sg4::Link*> links;
    double lat = 0;
    platform_.rank_hosts[src]->route_to(platform_.rank_hosts[dst], links, &lat);
    it->second = lat * latency_factor_;
  }
  return it->second;
}

}  // namespace dtsim::sg
