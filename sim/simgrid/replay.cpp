// The SimGrid actors of a Plan: FIFO stream actors, posted-op actors, and the replay of
// collectives and point-to-point messages over mailboxes.
#include "sim/simgrid/replay.hpp"

#include <simgrid/Exception.hpp>
#include <xbt/config.hpp>

#include <algorithm>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/base/overloaded.hpp"

namespace sg4 = simgrid::s4u;

namespace dtsim::sg {
namespace {

int token = 0;  // the payload of every message: only sizes matter

}  // namespace

Replay::Replay(const ClusterSpec& cluster, const Plan& plan, const Platform& platform, Observer& observer,
               SimGridOptions options, SimGridStats& stats)
    : cluster_(cluster),
      plan_(plan),
      platform_(platform),
      observer_(observer),
      options_(options),
      stats_(stats),
      costs_(cluster, plan),
      balance_(plan),
      total_iterations_(plan.warmup + plan.iterations),
      latency_factor_(simgrid::config::get_value<double>("network/latency-factor")),
      states_(plan.ranks.size()),
      posted_ops_(plan.ranks.size()),
      holds_(cluster, plan) {
  posted_free_.assign(plan.ranks.size(), 0.0);
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    states_[r].done.assign(plan.ranks[r].ops.size(), 0);
    states_[r].mutex = sg4::Mutex::create();
    states_[r].changed = sg4::ConditionVariable::create();
    states_[r].wakes.assign(plan.ranks[r].ops.size(), 0);
    quorum_op_.push_back(-1);
    for (const Op& op : plan.ranks[r].ops) {
      if (std::holds_alternative<QuorumOp>(op.body)) quorum_op_.back() = op.id;
      if (op.stream == Stream::Posted) posted_ops_[r].push_back(op.id);
      for (int d : op.deps) {
        const Op& dep = plan.ranks[r].ops[d];
        if (op.stream == Stream::Posted || dep.stream != op.stream) states_[r].wakes[d] = 1;
      }
    }
  }
}

void Replay::start() {
  // A device computes one op at a time (as the analytical engine): hosts shared by several ranks,
  // or whose rank computes on more than one stream (compression on the comm stream), take turns;
  // so do the ranks of a shared core (shared_cores.cpp), unless they share its speed (Processor).
  std::map<std::pair<sg4::Host*, int>, int> ranks_on;
  for (size_t r = 0; r < plan_.ranks.size(); ++r) {
    const auto device = device_of(static_cast<int>(r));
    ranks_on[device] += 1;
    for (const Op& op : plan_.ranks[r].ops) {
      if (is_compute(op.body) && op.stream != Stream::Compute) ranks_on[device] += 1;
    }
  }
  for (const auto& [device, count] : ranks_on) {
    if (count > 1) host_locks_[device] = sg4::Mutex::create();
  }
  holds_.create();
  for (size_t j = 0; j < plan_.jobs.size(); ++j) {
    GateState& st = gates_[static_cast<int>(j)];
    st.progress.assign(plan_.jobs[j].workers.size(), 0);
    st.mutex = sg4::Mutex::create();
    st.changed = sg4::ConditionVariable::create();
    QuorumState& q = quorums_[static_cast<int>(j)];
    q.mutex = sg4::Mutex::create();
    q.changed = sg4::ConditionVariable::create();
  }
  for (size_t r = 0; r < plan_.ranks.size(); ++r) {
    const int rank = static_cast<int>(r);
    for (Stream stream : {Stream::Compute, Stream::Comm}) {
      const auto& ops = plan_.ranks[r].ops;
      if (std::none_of(ops.begin(), ops.end(), [&](const Op& op) { return op.stream == stream; })) continue;
      sg4::Actor::create(fmt::format("r{}s{}", rank, static_cast<int>(stream)), platform_.rank_hosts[r],
                         [this, rank, stream] { stream_actor(rank, stream); });
      ++stats_.actors;
    }
    spawn_posted(rank);
  }
}

bool Replay::complete() const {
  return std::all_of(states_.begin(), states_.end(),
                     [&](const RankState& s) { return s.iteration == total_iterations_; });
}

void Replay::spawn_posted(int rank) {
  for (int op : posted_ops_[rank]) {
    sg4::Actor::create(fmt::format("r{}p{}", rank, op), platform_.rank_hosts[rank],
                       [this, rank, op] { posted_actor(rank, op); });
    ++stats_.actors;
  }
}

std::pair<sg4::Host*, int> Replay::device_of(int rank) const {
  if (platform_.compute_hosts.empty()) return {platform_.rank_hosts[rank], -1};
  if (options_.core_sharing == CoreSharing::Queue) return {platform_.compute_hosts[rank], -1};
  return {platform_.compute_hosts[rank], rank};
}

void Replay::stream_actor(int rank, Stream stream) {
  // Ranks on shared cores issue their ops one by one, as the analytical engine queues them (a fused
  // run would hold the core for the whole run; under processor sharing its per-op times, recovered
  // at full speed, would be wrong).
  const bool fuse = options_.fuse_compute && platform_.compute_hosts.empty();
  const auto units = stream_units(plan_.ranks[rank], stream, fuse);
  const std::vector<Op>& ops = plan_.ranks[rank].ops;
  RankState& st = states_[rank];
  for (int it = 0; it < total_iterations_; ++it) {
    {
      std::unique_lock lock(*st.mutex);
      while (st.iteration != it) st.changed->wait(lock);
    }
    for (size_t u = 0; u < units.size(); ++u) {
      const auto& unit = units[u];
      wait_deps(rank, ops[unit.ops.front()].deps);
      const bool claim = holds_.enabled() && stream == Stream::Compute && is_compute(ops[unit.ops.front()].body);
      if (claim && !st.stream_claim) {
        holds_.compute_begin(rank);
        st.stream_claim = true;
      }
      if (unit.ops.size() > 1) {
        execute_run(rank, unit.ops);
      } else {
        execute(rank, unit.ops.front());
      }
      // As on the analytical engine, a compute op ready the moment the last one ends keeps the core:
      // communication waiting for it starts only once the stream has nothing ready.
      const int next = u + 1 < units.size() ? units[u + 1].ops.front() : -1;
      if (st.stream_claim && !(next >= 0 && is_compute(ops[next].body) && deps_done(rank, next))) {
        holds_.compute_end(rank);
        st.stream_claim = false;
      }
    }
  }
}

bool Replay::deps_done(int rank, int op) const {
  const RankState& st = states_[rank];
  const auto& deps = plan_.ranks[rank].ops[op].deps;
  return std::all_of(deps.begin(), deps.end(), [&](int d) { return st.done[d] != 0; });
}

void Replay::posted_actor(int rank, int op) {
  wait_deps(rank, plan_.ranks[rank].ops[op].deps);
  execute(rank, op);
}

void Replay::wait_deps(int rank, const std::vector<int>& deps) {
  RankState& st = states_[rank];
  std::unique_lock lock(*st.mutex);
  for (int d : deps) {
    while (!st.done[d]) st.changed->wait(lock);
  }
}

void Replay::finish(int rank, int op, double start, double end, bool record, bool cut) {
  RankState& st = states_[rank];
  if (record && plan_.ranks[rank].ops[op].runs_in(st.iteration))
    observer_.on_op(OpRecord{rank, st.iteration, op, start, end, cut});
  st.done[op] = 1;
  bool wake = st.wakes[op];
  if (++st.done_count == static_cast<int>(st.done.size())) {
    ++st.iteration;
    std::fill(st.done.begin(), st.done.end(), 0);
    st.done_count = 0;
    if (st.iteration < total_iterations_) spawn_posted(rank);
    wake = true;
  }
  // Only another actor waits on an op: its own stream's next op runs in the same actor.
  if (wake) st.changed->notify_all();
}

double Replay::seconds(int rank, const Op& op) {
  const int it = states_[rank].iteration;
  const double slow = plan_.slowdown_of(rank, it);
  const double share = balance_.scales(rank, op) ? balance_.scale(rank, it) : 1.0;
  if (const auto* c = std::get_if<ComputeOp>(&op.body))
    return costs_.compute_time(plan_.ranks[rank], *c) * slow * share;
  if (const auto* u = std::get_if<UpdateOp>(&op.body)) return costs_.update_time(plan_.ranks[rank], *u) * slow;
  return 0.0;
}

// Communication starts when every party has arrived: the time a rank spends before that, blocked
// on a peer that is late, is waiting, not communication (as the analytical engine counts it).
void Replay::execute(int rank, int op_id) {
  const Op& op = plan_.ranks[rank].ops[op_id];
  const double start = sg4::Engine::get_clock();
  const int it = states_[rank].iteration;
  if (!op.runs_in(it) || abandoned(rank, it, op_id)) {
    finish(rank, op_id, start, start, false);
    return;
  }
  std::visit(
      Overloaded{[&](const ComputeOp&) { execute_run(rank, {op_id}); },
                 [&](const UpdateOp&) { execute_run(rank, {op_id}); },
                 [&](const CollectiveOp& c) {
                   // The rank's own work around it first (the profile's collective_buffer
                   // curve), as in the analytical engine.
                   const double host = costs_.collective_host_time(c);
                   if (host > 0) sg4::this_actor::sleep_for(host);
                   double& arrived = arrivals_[std::make_tuple(c.group, c.seq, it)];
                   arrived = std::max(arrived, sg4::Engine::get_clock());
                   const std::vector<int>& members = plan_.groups[c.group].ranks;
                   if (holds_.enabled()) {  // communication from the moment it has its cores
                     holds_.comm_begin({'c', c.group, c.seq, it, 2, 0}, members, static_cast<int>(members.size()));
                     arrived = std::max(arrived, sg4::Engine::get_clock());
                   }
                   // Merged flows lose the data dependencies between rounds (no rank's result is
                   // ready before every rank's input has gone round): at flow fidelity the
                   // members start together and end together.
                   if (options_.fidelity == Fidelity::Flow) together(c, it, 0);
                   replay_collective(rank, c);
                   if (options_.fidelity == Fidelity::Flow) together(c, it, 1);
                   if (holds_.enabled()) holds_.comm_end(rank);
                   finish_comm(rank, op_id, arrived);
                 },
                 [&](const SendOp& s) {
                   // A worker fills each push first, one after the other on its posted stream (as
                   // in the analytical engine).
                   if (const double host = costs_.send_host_time(plan_.ranks[rank], s); host > 0) {
                     double& free = posted_free_[static_cast<size_t>(rank)];
                     free = std::max(free, start) + host;
                     sg4::this_actor::sleep_until(free);
                   }
                   double& arrived = arrivals_[std::make_tuple(-1 - rank, s.peer * 65536 + s.tag, it)];
                   arrived = std::max(arrived, sg4::Engine::get_clock());
                   if (holds_.enabled()) {
                     holds_.comm_begin({'p', rank, s.peer, s.tag, it, 2}, {rank, s.peer}, 2);
                     arrived = std::max(arrived, sg4::Engine::get_clock());
                   }
                   if (platform_.p2p_hosts.empty()) {
                     mailbox('p', s.peer, rank, s.tag)->put(&token, s.bytes);
                     ++stats_.activities;
                   } else {
                     p2p_transfer(rank, s.peer, s.tag, it, s.bytes, true);
                   }
                   if (holds_.enabled()) holds_.comm_end(rank);
                   finish_comm(rank, op_id, arrived);
                 },
                 [&](const RecvOp& r) {
                   double& arrived = arrivals_[std::make_tuple(-1 - r.peer, rank * 65536 + r.tag, it)];
                   arrived = std::max(arrived, start);
                   if (holds_.enabled()) {
                     holds_.comm_begin({'p', r.peer, rank, r.tag, it, 2}, {r.peer, rank}, 2);
                     arrived = std::max(arrived, sg4::Engine::get_clock());
                   }
                   if (platform_.p2p_hosts.empty()) {
                     mailbox('p', rank, r.peer, r.tag)->get<int>();
                   } else {
                     p2p_transfer(r.peer, rank, r.tag, it, r.bytes, false);
                   }
                   if (holds_.enabled()) holds_.comm_end(rank);
                   finish_comm(rank, op_id, arrived);
                 },
                 [&](const GateOp& g) {
                   gate(rank, g, it);
                   finish(rank, op_id, start, sg4::Engine::get_clock());
                 },
                 [&](const QuorumOp& q) {
                   quorum(rank, q, it);
                   finish(rank, op_id, start, sg4::Engine::get_clock());
                 },
                 [&](const GossipOp& g) {
                   const int peer = plan_.gossip_peer[rank][it];
                   double begun = start;
                   if (holds_.enabled()) {
                     holds_.comm_begin({'g', rank, it, 0, 0, 0}, {rank, peer}, 1);
                     begun = sg4::Engine::get_clock();
                   }
                   gossip(rank, g, it);
                   if (holds_.enabled()) {
                     holds_.comm_end(rank);
                     holds_.comm_end(peer);
                   }
                   finish_comm(rank, op_id, begun);
                 }},
      op.body);
}

// A barrier of the collective's members, one per (collective, iteration, start or end).
void Replay::together(const CollectiveOp& c, int iteration, int which) {
  meet({'c', c.group, c.seq, iteration, which, 0}, static_cast<unsigned>(plan_.groups[c.group].ranks.size()));
}

void Replay::meet(const MeetKey& key, unsigned parties) {
  auto found = barriers_.find(key);
  if (found == barriers_.end()) {
    // Creating a synchronisation object may yield to other actors: look again before adding it.
    const sg4::BarrierPtr made = sg4::Barrier::create(parties);
    found = barriers_.find(key);
    if (found == barriers_.end()) found = barriers_.emplace(key, made).first;
  }
  const sg4::BarrierPtr keep = found->second;  // the map entry goes when the last party arrives
  if (keep->wait()) barriers_.erase(key);
}

// A message between point-to-point endpoints (Platform::p2p_hosts): as a mailbox exchange, it starts
// when both sides are there and both leave when it has arrived. The sending side sends it.
void Replay::p2p_transfer(int src, int dst, int tag, int iteration, double bytes, bool sending) {
  meet({'p', src, dst, tag, iteration, 0}, 2);
  if (sending) {
    sg4::Comm::sendto(platform_.p2p_hosts[src], platform_.p2p_hosts[dst], static_cast<uint64_t>(bytes));
    ++stats_.activities;
  }
  meet({'p', src, dst, tag, iteration, 1}, 2);
}

// SSP: wait until every worker of the job has reached its gate of iteration (it - lag).
void Replay::gate(int rank, const GateOp& g, int it) {
  const auto& workers = plan_.jobs[g.job].workers;
  GateState& st = gates_[g.job];  // made in the constructor: creating sync objects yields to other actors
  st.progress[std::lower_bound(workers.begin(), workers.end(), rank) - workers.begin()] = it + 1;
  st.changed->notify_all();
  std::unique_lock lock(*st.mutex);
  while (*std::min_element(st.progress.begin(), st.progress.end()) < it - g.lag + 1) st.changed->wait(lock);
}

bool Replay::abandoned(int rank, int it, int op) const {
  const int q = quorum_op_[rank];
  return op < q && quorums_.at(plan_.ranks[rank].job).passed.count(it) > 0;
}

// Backup workers: the first `needed` arrivals of an iteration pass together; then every worker
// still computing before its quorum op in that iteration has its compute run cancelled.
void Replay::quorum(int rank, const QuorumOp& q, int it) {
  QuorumState& st = quorums_.at(q.job);
  if (st.passed.count(it)) return;
  if (++st.arrived[it] >= q.needed) {
    st.passed.insert(it);
    st.arrived.erase(it);
    for (int w : plan_.jobs[q.job].workers) {
      RankState& other = states_[w];
      if (w == rank || other.iteration != it || !other.running || other.running_first >= quorum_op_[w]) continue;
      other.running->cancel();
    }
    st.changed->notify_all();
    return;
  }
  std::unique_lock lock(*st.mutex);
  while (!st.passed.count(it)) st.changed->wait(lock);
}

// Gossip: the model goes to the iteration's peer and the peer's comes back, both at once; the
// peer's communication thread serves it, so no actor of the peer takes part.
void Replay::gossip(int rank, const GossipOp& g, int it) {
  const auto& ends = platform_.p2p_hosts.empty() ? platform_.rank_hosts : platform_.p2p_hosts;
  sg4::Host* me = ends[rank];
  sg4::Host* peer = ends[plan_.gossip_peer[rank][it]];
  const auto bytes = static_cast<uint64_t>(g.bytes);
  std::vector<sg4::CommPtr> comms{sg4::Comm::sendto_async(me, peer, bytes), sg4::Comm::sendto_async(peer, me, bytes)};
  stats_.activities += 2;
  sg4::Comm::wait_all(comms);
}

void Replay::finish_comm(int rank, int op, double arrived) {
  const double end = sg4::Engine::get_clock();
  finish(rank, op, std::min(arrived, end), end);
}

// One activity for the whole run; each op's times recovered from its own duration.
void Replay::execute_run(int rank, const std::vector<int>& ops) {
  RankState& state = states_[rank];
  if (abandoned(rank, state.iteration, ops.front())) {
    const double now = sg4::Engine::get_clock();
    for (int id : ops) finish(rank, id, now, now, false);
    return;
  }
  std::vector<double> durations;
  double total = 0;
  for (int id : ops) {
    durations.push_back(seconds(rank, plan_.ranks[rank].ops[id]));
    total += durations.back();
  }
  // A device computes one op at a time: ranks sharing a host take turns, first come first served.
  const bool held = holds_.enabled() && total > 0 && !state.stream_claim;
  if (held) holds_.compute_begin(rank);
  const auto shared = host_locks_.find(device_of(rank));
  std::unique_lock<sg4::Mutex> turn;
  if (shared != host_locks_.end() && total > 0) turn = std::unique_lock<sg4::Mutex>(*shared->second);
  const double start = sg4::Engine::get_clock();
  // Backup workers: a worker left behind by its job's quorum has this run cancelled.
  // On a shared core: on the core's host (in turn, or sharing its speed: CoreSharing).
  state.running = sg4::this_actor::exec_init(total * platform_.rank_speed[rank]);
  if (!platform_.compute_hosts.empty()) state.running->set_host(platform_.compute_hosts[rank]);
  state.running->start();
  state.running_first = ops.front();
  // The quorum may have passed while the run was being started (before another actor could see it).
  if (abandoned(rank, state.iteration, ops.front())) state.running->cancel();
  bool cut = false;
  try {
    state.running->wait();
  } catch (const simgrid::CancelException&) {
    cut = true;
  }
  state.running = nullptr;
  state.running_first = -1;
  ++stats_.activities;
  const double end = sg4::Engine::get_clock();
  if (turn.owns_lock()) turn.unlock();
  if (held) holds_.compute_end(rank);
  // Under a speed profile an op's end is where its work is done on the profile (as SimGrid ran it).
  const Profile* profile = plan_.speed_profile_of(rank);
  const int it = states_[rank].iteration;
  double t = start;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (cut && i > 0 && t >= end) {  // abandoned before it began
      finish(rank, ops[i], end, end, false);
      continue;
    }
    const double natural = profile ? profile->finish(t, durations[i]) : t + durations[i];
    const double op_end = i + 1 == ops.size() || (cut && natural >= end) ? end : natural;
    const Op& op = plan_.ranks[rank].ops[ops[i]];
    if (balance_.scales(rank, op) && op.runs_in(it)) balance_.record(rank, it, op_end - t);
    finish(rank, ops[i], t, op_end, true, cut && op_end == end);
    t = op_end;
  }
}

void Replay::replay_collective(int rank, const CollectiveOp& c) {
  const CommGroup& group = plan_.groups[c.group];
  const auto pos = std::lower_bound(group.ranks.begin(), group.ranks.end(), rank);
  if (pos == group.ranks.end() || *pos != rank)
    throw RuntimeError("simgrid engine: a rank outside its collective group");
  const int me = static_cast<int>(pos - group.ranks.begin());
  const CollectiveReplay& rp = collective(c);
  std::vector<sg4::CommPtr> comms;
  std::vector<int*> payloads;
  for (size_t p = 0; p < rp.phases.size(); ++p) {
    const FlowPhase& phase = rp.phases[p];
    comms.clear();
    payloads.assign(rp.in[p][me].size(), nullptr);
    double alpha = 0;
    for (int f : rp.out[p][me]) {
      const int dst = group.ranks[phase.flows[f].dst];
      comms.push_back(mailbox('c', dst, rank, 0)->put_async(&token, phase.flows[f].bytes));
      alpha = std::max(alpha, latency(rank, dst));
    }
    for (size_t i = 0; i < rp.in[p][me].size(); ++i) {
      const int src = group.ranks[phase.flows[rp.in[p][me][i]].src];
      comms.push_back(mailbox('c', rank, src, 0)->get_async<int>(&payloads[i]));
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

const CollectiveReplay& Replay::collective(const CollectiveOp& c) {
  const CommGroup& group = plan_.groups[c.group];
  const auto key = std::make_tuple(c.group, static_cast<int>(group.ranks.size()), c.kind, c.bytes);
  auto& slot = collectives_[key];
  if (slot) return *slot;
  const GroupShape shape{static_cast<int>(group.ranks.size()), group.per_node, 0};
  auto rp = std::make_unique<CollectiveReplay>();
  // A calibrated platform's factors depend on each message's size, which flow fidelity's merged
  // flows (rounds x chunk bytes) would hide: with cluster.calibration every round is a message.
  const bool step = options_.fidelity == Fidelity::Step || cluster_.calibration != nullptr;
  rp->phases = step ? step_phases(c.algorithm->schedule(c.kind, shape, c.bytes))
                    : c.algorithm->flow_phases(c.kind, shape, c.bytes);
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

sg4::Mailbox* Replay::mailbox(char kind, int dst, int src, int tag) {
  sg4::Mailbox*& m = mailboxes_[std::make_tuple(kind, dst, src, tag)];
  if (!m) m = sg4::Mailbox::by_name(fmt::format("{}{}:{}:{}", kind, dst, src, tag));
  return m;
}

double Replay::latency(int src, int dst) {
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
