// The SimGrid actors of a Plan: FIFO stream actors and posted-op actors issuing each op, with
// collectives, messages and the policies' synchronisation delegated to their own classes.
#include "sim/simgrid/replay.hpp"

#include <simgrid/Exception.hpp>

#include <algorithm>

#include <fmt/format.h>

#include "core/base/overloaded.hpp"
#include "sim/simgrid/stream_units.hpp"

namespace sg4 = simgrid::s4u;

namespace dtsim::sg {

using cost::CollectiveInstance;
using cost::GossipInstance;
using cost::MessageInstance;

Replay::Replay(const ClusterSpec& cluster, const Plan& plan, const Platform& platform, Observer& observer,
               SimGridOptions options, SimGridStats& stats)
    : plan_(plan),
      platform_(platform),
      options_(options),
      stats_(stats),
      costs_(cluster, plan),
      balance_(plan),
      progress_(
          plan, observer, [this](int rank) { next_iteration(rank); },
          [this](int rank, int op) { spawn_posted_after(rank, op); }),
      collectives_(cluster, plan, costs_, platform, options.fidelity, mailboxes_, stats),
      messages_(platform, mailboxes_, rendezvous_, stats),
      gates_(plan),
      quorums_(plan, progress_),
      turns_(plan, platform, options.core_sharing),
      holds_(cluster, plan),
      contention_(cluster, plan, platform),
      posted_ops_(plan.ranks.size()),
      posted_after_(plan.ranks.size()),
      posted_(plan.ranks.size()),
      posted_free_(plan.ranks.size(), 0.0) {
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    for (const Op& op : plan.ranks[r].ops) {
      if (op.stream != Stream::Posted) continue;
      if (op.deps.empty()) posted_ops_[r].push_back(op.id);
      for (int d : op.deps) {
        if (posted_after_[r].empty()) posted_after_[r].resize(plan.ranks[r].ops.size());
        posted_after_[r][d].push_back(op.id);
      }
    }
  }
}

void Replay::start() {
  turns_.create();
  holds_.create();
  gates_.create();
  quorums_.create();
  for (PostedQueue& q : posted_) q.ready = sg4::ConditionVariable::create();
  for (size_t r = 0; r < plan_.ranks.size(); ++r) {
    const int rank = static_cast<int>(r);
    for (Stream stream : {Stream::Compute, Stream::Comm}) {
      const auto& ops = plan_.ranks[r].ops;
      if (std::none_of(ops.begin(), ops.end(), [&](const Op& op) { return op.stream == stream; })) continue;
      sg4::Actor::create(fmt::format("r{}s{}", rank, static_cast<int>(stream)), platform_.rank_hosts[r],
                         [this, rank, stream] { stream_actor(rank, stream); });
      ++stats_.actors;
    }
    next_iteration(rank);
  }
}

bool Replay::complete() const { return progress_.complete(); }

void Replay::next_iteration(int rank) {
  if (progress_[rank].iteration < progress_.iterations()) {
    for (int op : posted_ops_[rank]) post(rank, op);
  } else {
    posted_[rank].ready->notify_all();  // the rank is done: its idle posted actors leave
  }
}

void Replay::spawn_posted_after(int rank, int done) {
  if (posted_after_[rank].empty()) return;
  for (int op : posted_after_[rank][done]) {
    if (progress_.deps_done(rank, op)) post(rank, op);
  }
}

void Replay::post(int rank, int op) {
  if (!std::holds_alternative<SendOp>(plan_.ranks[rank].ops[op].body)) {
    // Other posted ops (a server's aggregation and replies, pulls) keep an actor each: their
    // compute and quorum handling belong to the actor that issued them.
    sg4::Actor::create(fmt::format("r{}p{}", rank, op), platform_.rank_hosts[rank], [this, rank, op] {
      progress_.wait_deps(rank, plan_.ranks[rank].ops[op].deps);
      execute(rank, op);
    });
    ++stats_.actors;
    return;
  }
  PostedQueue& q = posted_[rank];
  q.ops.push_back(op);
  if (q.idle > 0) {
    --q.idle;  // taken now, so that the next op posted at this instant finds no idle actor left
    q.ready->notify_one();
    return;
  }
  sg4::Actor::create(fmt::format("r{}p{}", rank, stats_.actors), platform_.rank_hosts[rank],
                     [this, rank] { posted_actor(rank); });
  ++stats_.actors;
}

void Replay::stream_actor(int rank, Stream stream) {
  // Ranks on shared cores issue their ops one by one, as the analytical engine queues them (a fused
  // run would hold the core for the whole run; under processor sharing its per-op times, recovered
  // at full speed, would be wrong).
  // Under contention a fused run slows as its host's pstate changes (contention.hpp), and each op's end
  // within it is found from the speeds the run had; composites, which run at pstates of their own, and
  // ranks with a speed profile as well issue each op alone.
  // A rank that also computes on its comm stream (compress, decompress) issues each op alone too: its
  // device takes turns at op boundaries, and a fused run would hold it for the whole backward pass.
  const bool contended = contention_.on(rank);
  const std::vector<Op>& rank_ops = plan_.ranks[rank].ops.ops();
  const bool two_computing_streams = std::any_of(
      rank_ops.begin(), rank_ops.end(), [](const Op& op) { return op.stream == Stream::Comm && is_compute(op.body); });
  const bool fuse = options_.fuse_compute && platform_.compute_hosts.empty() && !two_computing_streams &&
                    !(contended && plan_.speed_profile_of(rank) != nullptr);
  const auto units = stream_units(plan_.ranks[rank], stream, fuse, contended);
  const std::vector<Op>& ops = plan_.ranks[rank].ops.ops();
  RankState& st = progress_[rank];
  for (int it = 0; it < progress_.iterations(); ++it) {
    progress_.wait_iteration(rank, it);
    for (size_t u = 0; u < units.size(); ++u) {
      const auto& unit = units[u];
      progress_.wait_deps(rank, ops[unit.ops.front()].deps);
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
      if (st.stream_claim && !(next >= 0 && is_compute(ops[next].body) && progress_.deps_done(rank, next))) {
        holds_.compute_end(rank);
        st.stream_claim = false;
      }
    }
  }
}

void Replay::posted_actor(int rank) {
  PostedQueue& q = posted_[rank];
  for (;;) {
    int op = -1;
    {
      // The op is taken before the lock is released: releasing it is a simcall, and other actors run
      // before this one goes on (an actor finishing its send would take the op, and front() of an empty
      // queue read a stray op: the segfaults, bus errors and deadlocks of issue #51).
      std::unique_lock lock(*progress_[rank].mutex);
      while (q.ops.empty()) {
        if (progress_[rank].iteration >= progress_.iterations()) return;
        ++q.idle;
        q.ready->wait(lock);
      }
      op = q.ops.front();
      q.ops.pop_front();
    }
    progress_.wait_deps(rank, plan_.ranks[rank].ops[op].deps);
    execute(rank, op);
  }
}

double Replay::seconds(int rank, const Op& op) {
  const int it = progress_[rank].iteration;
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
  const int it = progress_[rank].iteration;
  if (!op.runs_in(it) || quorums_.abandoned(rank, it, op_id)) {
    progress_.finish(rank, op_id, start, start, false);
    return;
  }
  std::visit(Overloaded{[&](const ComputeOp&) { execute_run(rank, {op_id}); },
                        [&](const UpdateOp&) { execute_run(rank, {op_id}); },
                        [&](const CollectiveOp& c) { collective(rank, op_id, c, it); },
                        [&](const SendOp& s) { send(rank, op_id, s, it, start); },
                        [&](const RecvOp& r) {
                          message(rank, op_id, MessageInstance{r.peer, rank, r.tag, it}, r.bytes, Side::Receive);
                        },
                        [&](const GateOp& g) {
                          gates_.pass(rank, g, it);
                          progress_.finish(rank, op_id, start, sg4::Engine::get_clock());
                        },
                        [&](const QuorumOp& q) {
                          quorums_.arrive(rank, q, it);
                          progress_.finish(rank, op_id, start, sg4::Engine::get_clock());
                        },
                        [&](const GossipOp& g) { gossip(rank, op_id, g, it, start); }},
             op.body);
}

void Replay::collective(int rank, int op, const CollectiveOp& c, int it) {
  // The rank's own work around it first (the profile's collective_buffer curve), as in the
  // analytical engine.
  const double host = costs_.collective_host_time(c);
  if (host > 0) sg4::this_actor::sleep_for(host);
  const CollectiveInstance key{c.group, c.seq, it};
  double& arrived = rendezvous_.arrive(key, sg4::Engine::get_clock());
  const std::vector<int>& members = plan_.groups[c.group].ranks;
  const auto parties = static_cast<unsigned>(members.size());
  if (holds_.enabled()) {  // communication from the moment it has its cores
    holds_.comm_begin(key, members, static_cast<int>(parties));
    arrived = std::max(arrived, sg4::Engine::get_clock());
  }
  // Merged flows lose the data dependencies between rounds (no rank's result is ready before every
  // rank's input has gone round): at flow fidelity the members start together and end together.
  const bool together = options_.fidelity == Fidelity::Flow;
  if (together) rendezvous_.meet(key, Rendezvous::Moment::Start, parties);
  contention_.begin(rank);
  collectives_.replay(rank, c);
  if (together) rendezvous_.meet(key, Rendezvous::Moment::End, parties);
  contention_.end(rank);
  if (holds_.enabled()) holds_.comm_end(rank);
  finish_comm(rank, op, rendezvous_.leave(key, parties));
}

void Replay::send(int rank, int op, const SendOp& s, int it, double start) {
  // A worker fills each push first, one after the other on its posted stream (as in the analytical
  // engine).
  if (const double host = costs_.send_host_time(plan_.ranks[rank], s); host > 0) {
    double& free = posted_free_[static_cast<size_t>(rank)];
    free = std::max(free, start) + host;
    sg4::this_actor::sleep_until(free);
  }
  message(rank, op, MessageInstance{rank, s.peer, s.tag, it}, s.bytes, Side::Send);
}

// Either end of a message: it starts once both ends have arrived (and, with core holds, once both
// cores are free of compute).
void Replay::message(int rank, int op, const MessageInstance& m, double bytes, Side side) {
  double& arrived = rendezvous_.arrive(m, sg4::Engine::get_clock());
  if (holds_.enabled()) {
    holds_.comm_begin(m, {m.src, m.dst}, 2);
    arrived = std::max(arrived, sg4::Engine::get_clock());
  }
  // Under contention a message slows its ranks' compute from when both ends are there.
  const bool contended = contention_.on(m.src) || contention_.on(m.dst);
  if (contended) rendezvous_.meet(m, Rendezvous::Moment::Start, 2);
  contention_.begin(rank);
  messages_.transfer(m, bytes, side);
  contention_.end(rank);
  if (holds_.enabled()) holds_.comm_end(rank);
  finish_comm(rank, op, rendezvous_.leave(m, 2));
}

// Gossip: the peer's communication thread serves the exchange, so the peer's cores are held too
// (by this rank alone: the peer's program takes no part).
void Replay::gossip(int rank, int op, const GossipOp& g, int it, double start) {
  const int peer = plan_.gossip_peer[rank][it];
  double begun = start;
  if (holds_.enabled()) {
    holds_.comm_begin(GossipInstance{rank, it}, {rank, peer}, 1);
    begun = sg4::Engine::get_clock();
  }
  contention_.begin(rank);
  messages_.exchange(rank, peer, g.bytes);
  contention_.end(rank);
  if (holds_.enabled()) {
    holds_.comm_end(rank);
    holds_.comm_end(peer);
  }
  finish_comm(rank, op, begun);
}

void Replay::finish_comm(int rank, int op, double arrived) {
  const double end = sg4::Engine::get_clock();
  progress_.finish(rank, op, std::min(arrived, end), end);
}

// One activity for the whole run; each op's times recovered from its own duration.
void Replay::execute_run(int rank, const std::vector<int>& ops) {
  RankState& state = progress_[rank];
  if (quorums_.abandoned(rank, state.iteration, ops.front())) {
    const double now = sg4::Engine::get_clock();
    for (int id : ops) progress_.finish(rank, id, now, now, false);
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
  std::unique_lock<sg4::Mutex> turn;
  if (total > 0) turn = turns_.take(rank);
  const double start = sg4::Engine::get_clock();
  // Backup workers: a worker left behind by its job's quorum has this run cancelled.
  // On a shared core: on the core's host (in turn, or sharing its speed: CoreSharing).
  // Under contention the host's pstate while the rank communicates is the op's (contention.hpp).
  contention_.computing(rank, plan_.ranks[rank].ops[ops.front()]);
  state.running = sg4::this_actor::exec_init(total * platform_.rank_speed[rank]);
  if (!platform_.compute_hosts.empty()) state.running->set_host(platform_.compute_hosts[rank]);
  state.running->start();
  state.running_first = ops.front();
  // The quorum may have passed while the run was being started (before another actor could see it).
  if (quorums_.abandoned(rank, state.iteration, ops.front())) state.running->cancel();
  bool cut = false;
  try {
    state.running->wait();
  } catch (const simgrid::CancelException&) {
    cut = true;
  }
  contention_.done_computing(rank);
  state.running = nullptr;
  state.running_first = -1;
  ++stats_.activities;
  const double end = sg4::Engine::get_clock();
  if (turn.owns_lock()) turn.unlock();
  if (held) holds_.compute_end(rank);
  // Under a speed profile an op's end is where its work is done on the profile (as SimGrid ran it).
  const Profile* profile = plan_.speed_profile_of(rank);
  const int it = state.iteration;
  double t = start;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (cut && i > 0 && t >= end) {  // abandoned before it began
      progress_.finish(rank, ops[i], end, end, false);
      continue;
    }
    const double natural = profile ? profile->finish(t, durations[i]) : contention_.finish(rank, t, durations[i]);
    const double op_end = i + 1 == ops.size() || (cut && natural >= end) ? end : natural;
    const Op& op = plan_.ranks[rank].ops[ops[i]];
    if (balance_.scales(rank, op) && op.runs_in(it)) balance_.record(rank, it, op_end - t);
    progress_.finish(rank, ops[i], t, op_end, true, cut && op_end == end);
    t = op_end;
  }
}

}  // namespace dtsim::sg
