// The analytical engine's scheduler: a time-ordered event loop over every rank's program.
#include "sim/analytical/engine.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/calibration/calibration.hpp"
#include "core/plan/batch_balance.hpp"
#include "models/cost/cores.hpp"
#include "models/cost/cost_model.hpp"
#include "sim/analytical/op_graph.hpp"
#include "sim/analytical/port_share.hpp"

namespace dtsim::analytical {
namespace {

struct Event {
  double time;
  long seq;  // ties resolve in the order events were made: deterministic
  bool done;
  int rank;
  int op;
  double start;  // for done events
  bool record;   // false: an op that did not run (skipped by its period, or abandoned): no record
  bool cut;      // a compute op cut short by its backup-worker quorum
  bool operator>(const Event& o) const { return std::tie(time, seq) > std::tie(o.time, o.seq); }
};

class Scheduler {
  struct Transfer {
    cost::TransferPath path;
    double bytes;
    int rank_a, op_a, rank_b, op_b;
    int peer;  // the rank at the other end (rank_b, or a gossip's peer)
    // Copies of this transfer through the sending and the receiving port: a representative's
    // mirrored ranks send theirs through its node's NICs at the same instant (RankProgram::mirrored).
    double copies_from = 1;
    double copies_to = 1;
    double start = 0;  // when its bytes began to flow
  };
  struct Held {
    std::vector<std::pair<int, int>> cores;
    std::function<void(double)> begin;
  };

 public:
  Scheduler(const ClusterSpec& cluster, const Plan& plan, Observer& observer)
      : cluster_(cluster), plan_(plan), costs_(cluster, plan), observer_(observer), balance_(plan) {
    for (const auto& r : plan.ranks) {
      graphs_.push_back(build_op_graph(r));
      int q = -1;
      for (const Op& op : r.ops) {
        if (std::holds_alternative<QuorumOp>(op.body)) q = op.id;
      }
      quorum_op_.push_back(q);
    }
    // A plan of representatives (PlanScope::Representatives): a collective waits for the members
    // that have a program; the others mirror them.
    present_.assign(plan.groups.size(), 0);
    for (size_t g = 0; g < plan.groups.size(); ++g) {
      for (int r : plan.groups[g].ranks) present_[g] += plan.ranks[r].ops.empty() ? 0 : 1;
    }
    remaining_.resize(plan.ranks.size());
    hold_ = cost::comm_holds_cores(cluster);
    core_key_ = cost::compute_devices(cluster, plan);
    done_count_.assign(plan.ranks.size(), 0);
    posted_free_.assign(plan.ranks.size(), 0.0);
    running_.assign(plan.ranks.size(), Running{-1, -1, 0.0, 0.0});
    iteration_.assign(plan.ranks.size(), 0);
    // Contention: a worker alone on its device computes at cluster.contention.compute of its rate
    // while it communicates (cost::compute_kept).
    kept_ = cost::compute_kept(cluster, plan);
    communicating_.assign(plan.ranks.size(), 0);
    device_run_.resize(plan.ranks.size());
  }

  void run() {
    const int total = plan_.warmup + plan_.iterations;
    for (size_t r = 0; r < plan_.ranks.size(); ++r) start_iteration(static_cast<int>(r), 0.0);
    while (!queue_.empty() || !share_.empty()) {
      const double now = std::min(queue_.empty() ? share_.next_drain() : queue_.top().time, share_.next_drain());
      if (share_.next_drain() <= now) drain_transfers(now);
      while (!queue_.empty() && queue_.top().time == now) {
        const Event e = queue_.top();
        queue_.pop();
        if (e.done) {
          if (cancelled_.empty() || cancelled_.erase(e.seq) == 0) finish(e);
        } else {
          ready(e);
        }
      }
      if (hold_) release_held(now);
      flush_transfers(now);
    }
    for (size_t r = 0; r < plan_.ranks.size(); ++r) {
      if (iteration_[r] < total && !plan_.ranks[r].ops.empty())
        throw RuntimeError(
            "analytical engine: the plan deadlocks (unmatched collective or "
            "send/recv)");
    }
  }

 private:
  long push(double time, bool done, int rank, int op, double start = 0, bool record = true, bool cut = false) {
    queue_.push(Event{time, seq_, done, rank, op, start, record, cut});
    return seq_++;
  }

  void start_iteration(int r, double t) {
    if (iteration_[r] >= plan_.warmup + plan_.iterations) return;
    remaining_[r] = graphs_[r].preds;
    done_count_[r] = 0;
    for (size_t i = 0; i < remaining_[r].size(); ++i) {
      if (remaining_[r][i] == 0) push(t, false, r, static_cast<int>(i));
    }
  }

  void ready(const Event& e) {
    const RankProgram& rank = plan_.ranks[e.rank];
    const Op& op = rank.ops[e.op];
    const int it = iteration_[e.rank];
    if (!op.runs_in(it) || abandoned(e.rank, it, e.op)) {
      push(e.time, true, e.rank, e.op, e.time, false);
      return;
    }
    const double slow = plan_.slowdown_of(e.rank, it);
    if (const auto* c = std::get_if<ComputeOp>(&op.body)) {
      const double share = balance_.scales(e.rank, op) ? balance_.scale(e.rank, it) : 1.0;
      // Under contention a composite's communication parts are not slowed (cost::composite_kept).
      const double under = c->composite >= 0 && kept_[e.rank] < 1
                               ? cost::composite_kept(kept_[e.rank], costs_.composite_timing(c->composite))
                               : kept_[e.rank];
      compute(e, costs_.compute_time(rank, *c) * slow * share, under);
    } else if (const auto* u = std::get_if<UpdateOp>(&op.body)) {
      compute(e, costs_.update_time(rank, *u) * slow, kept_[e.rank]);
    } else if (const auto* col = std::get_if<CollectiveOp>(&op.body)) {
      // The rank's own work around the collective (filling and checking its buffer, measured by
      // calibration) keeps its comm stream busy first; the collective starts once every rank is in.
      const double host = costs_.collective_host_time(*col);
      if (host > 0 && !past_host_work(e, it)) {
        push(e.time + host, false, e.rank, e.op);
        return;
      }
      auto& waiting = collectives_[{col->group, col->seq, it}];
      waiting.push_back({e.rank, e.op});
      if (static_cast<int>(waiting.size()) == present_[col->group]) {
        auto begin = [this, col, members = waiting](double now) {
          const double end = collective_end(*col, now);
          for (auto [r, o] : members) {
            push_comm(end, r, o, now);
            if (hold_) hold_core(r, end);
          }
        };
        if (hold_) {
          std::vector<int> ranks;
          for (auto [r, o] : waiting) ranks.push_back(r);
          held_.push_back(Held{cores_of(ranks), begin});
        } else {
          begin(e.time);
        }
        collectives_.erase({col->group, col->seq, it});
      }
    } else if (const auto* s = std::get_if<SendOp>(&op.body)) {
      // A worker fills each push first, one after the other on its posted stream.
      const double host = costs_.send_host_time(rank, *s);
      if (host > 0 && !past_host_work(e, it)) {
        double& free = posted_free_[static_cast<size_t>(e.rank)];
        free = std::max(free, e.time) + host;
        push(free, false, e.rank, e.op);
        return;
      }
      rendezvous(e, {e.rank, s->peer, s->tag, it}, s->bytes);
    } else if (const auto* rv = std::get_if<RecvOp>(&op.body)) {
      rendezvous(e, {rv->peer, e.rank, rv->tag, it}, rv->bytes);
    } else if (const auto* g = std::get_if<GateOp>(&op.body)) {
      gate(e, *g, it);
    } else if (const auto* q = std::get_if<QuorumOp>(&op.body)) {
      quorum(e, *q, it);
    } else if (const auto* gs = std::get_if<GossipOp>(&op.body)) {
      const int peer = plan_.gossip_peer[e.rank][it];
      const auto& me = plan_.ranks[e.rank].where;
      const auto& other = plan_.ranks[peer].where;
      start_transfers({Transfer{costs_.path(me, other, gs->bytes), gs->bytes, e.rank, e.op, -1, -1, peer},
                       Transfer{costs_.path(other, me, gs->bytes), gs->bytes, e.rank, e.op, -1, -1, peer}});
    }
  }

  // A device computes one op at a time: ranks sharing one (a server's per-worker ranks) queue.
  // An op of no work (compression at cost_scale 0) does not wait for the device. `seconds` of work
  // at full speed take longer where the device's speed profile is below 1 (integrated exactly).
  // `under`: the fraction of its rate the op keeps while its rank communicates (contention).
  void compute(const Event& e, double seconds, double under) {
    if (seconds <= 0) {
      push(e.time, true, e.rank, e.op, e.time);
      return;
    }
    if (hold_) {
      const auto key = core_key_[static_cast<size_t>(e.rank)];
      if (transfers_on_[key] > 0) {
        deferred_[key].emplace_back(e, seconds, under);
        return;
      }
    }
    if (kept_[e.rank] < 1) {
      contended_compute(e.rank, e.op, e.time, seconds, under);
      return;
    }
    const auto key = core_key_[static_cast<size_t>(e.rank)];
    double& free_at = device_free_[key];
    const double start = std::max({e.time, free_at, hold_ ? comm_until_[key] : 0.0});
    const Profile* profile = plan_.speed_profile_of(e.rank);
    free_at = profile ? profile->finish(start, seconds) : start + seconds;
    running_[e.rank] = Running{e.op, push(free_at, true, e.rank, e.op, start), start, free_at};
  }

  // A collective's end. Under NIC bandwidth profiles its inter-node bandwidth term runs at the
  // slowest profiled NIC of the group, integrated from its start; latency and intra-node terms follow
  // unchanged (an approximation: docs/stragglers.md).
  double collective_end(const CollectiveOp& col, double now) {
    const double whole = costs_.collective_time(col);
    std::vector<const Profile*> nics;
    for (int r : plan_.groups[col.group].ranks) {
      const Profile* p = cluster_.nic_profile_of(plan_.ranks[r].where.node);
      if (p && std::find(nics.begin(), nics.end(), p) == nics.end()) nics.push_back(p);
    }
    if (nics.empty()) return now + whole;
    const double inter = costs_.collective_inter_bandwidth_time(col);
    return finish_under_minimum(nics, now, inter) + (whole - inter);
  }

  // Backup workers: an op before the rank's quorum op, in an iteration whose quorum has passed.
  bool abandoned(int rank, int it, int op) const {
    const int q = quorum_op_[rank];
    return op < q && quorum_passed_.count({plan_.ranks[rank].job, it}) > 0;
  }

  // Passes once `needed` workers have arrived in this iteration; the latecomers' compute before
  // the quorum is abandoned: the op running now ends now (on a free device), the rest end unrun.
  void quorum(const Event& e, const QuorumOp& q, int it) {
    auto& arrived = quorum_arrived_[{q.job, it}];
    if (quorum_passed_.count({q.job, it})) {
      push(e.time, true, e.rank, e.op, e.time);
      return;
    }
    arrived.push_back({e.rank, e.op, 0, e.time});
    if (static_cast<int>(arrived.size()) < q.needed) return;
    quorum_passed_.insert({q.job, it});
    for (const auto& a : arrived) push(e.time, true, a.rank, a.op, a.since);
    quorum_arrived_.erase({q.job, it});
    for (int w : plan_.jobs[q.job].workers) {
      Running& run = running_[w];
      if (run.op < 0 || iteration_[w] != it || run.op >= quorum_op_[w]) continue;
      if (!cancelled_.insert(run.seq).second) continue;
      // Its device (its core, on shared cores) is free from now, unless another op queued behind it.
      double& free_at = device_free_[core_key_[static_cast<size_t>(w)]];
      if (free_at == run.end) free_at = e.time;
      push(e.time, true, w, run.op, std::min(run.start, e.time), true, true);
      run.op = -1;
      if (kept_[w] < 1) start_next(w, e.time);  // under contention: its device takes the next op
    }
  }

  // SSP: a worker's gate of iteration k passes once every worker of the job has reached its gate
  // of iteration k - lag.
  void gate(const Event& e, const GateOp& g, int it) {
    const auto& workers = plan_.jobs[g.job].workers;
    auto& progress = gate_progress_[g.job];
    progress.resize(workers.size(), 0);
    const auto pos = std::lower_bound(workers.begin(), workers.end(), e.rank) - workers.begin();
    progress[pos] = it + 1;
    gate_waiting_[g.job].push_back({e.rank, e.op, it - g.lag + 1, e.time});
    const int slowest = *std::min_element(progress.begin(), progress.end());
    auto& waiting = gate_waiting_[g.job];
    for (auto w = waiting.begin(); w != waiting.end();) {
      if (slowest >= w->required) {
        push(e.time, true, w->rank, w->op, w->since);
        w = waiting.erase(w);
      } else {
        ++w;
      }
    }
  }

  // A communication op with host work first (collective_host_time, send_host_time) is made ready
  // twice: whether this is the second time, past that work (then forgotten); else it is noted.
  bool past_host_work(const Event& e, int it) {
    if (prepared_.erase({e.rank, e.op, it}) > 0) return true;
    prepared_.insert({e.rank, e.op, it});
    return false;
  }

  // Both sides posted: the transfer joins the batch of transfers that start at this instant.
  void rendezvous(const Event& e, std::tuple<int, int, int, int> key, double bytes) {
    auto found = pending_p2p_.find(key);
    if (found == pending_p2p_.end()) {
      pending_p2p_.emplace(key, std::make_pair(e.rank, e.op));
      return;
    }
    const auto [other_rank, other_op] = found->second;
    pending_p2p_.erase(found);
    const auto [src, dst, tag, it] = key;
    const cost::TransferPath p = costs_.path(plan_.ranks[src].where, plan_.ranks[dst].where, bytes);
    Transfer t{p, bytes, e.rank, e.op, other_rank, other_op, other_rank};
    if (p.from.local < 0) t.copies_from = plan_.ranks[src].mirrored;
    if (p.to.local < 0) t.copies_to = plan_.ranks[dst].mirrored;
    start_transfers({t});
  }

  // Transfers join the batch of this instant, or with comm_holds_cores wait for their ranks' cores.
  void start_transfers(std::vector<Transfer> transfers) {
    if (!hold_) {
      batch_.insert(batch_.end(), transfers.begin(), transfers.end());
      return;
    }
    const Transfer& t = transfers.front();
    held_.push_back(Held{cores_of({t.rank_a, t.peer}), [this, transfers](double) {
                           batch_.insert(batch_.end(), transfers.begin(), transfers.end());
                         }});
  }

  // comm_holds_cores: what communication waits for its cores starts, first come first served, once
  // none of its cores computes (after every event of this instant: a compute op made ready now has
  // started and keeps its core).
  void release_held(double now) {
    for (auto it = held_.begin(); it != held_.end();) {
      const bool idle =
          std::all_of(it->cores.begin(), it->cores.end(), [&](const auto& key) { return device_free_[key] <= now; });
      if (!idle) {
        ++it;
        continue;
      }
      const std::function<void(double)> begin = std::move(it->begin);
      it = held_.erase(it);
      begin(now);
    }
  }

  std::vector<std::pair<int, int>> cores_of(const std::vector<int>& ranks) const {
    std::vector<std::pair<int, int>> keys;
    for (int r : ranks) keys.push_back(core_key_[static_cast<size_t>(r)]);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
  }

  // No compute starts on the rank's core before `end` (comm_holds_cores).
  void hold_core(int rank, double end) {
    double& until = comm_until_[core_key_[static_cast<size_t>(rank)]];
    until = std::max(until, end);
  }

  // The transfers made ready at this instant start: they share the ports they cross with every
  // transfer in flight (PortShare: max-min fair, re-shared whenever one starts or drains). N equal
  // pushes into one server port end together at N*S/B.
  void flush_transfers(double now) {
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
      if (hold_) {
        for (int r : {t.rank_a, t.peer}) ++transfers_on_[core_key_[static_cast<size_t>(r)]];
      }
      if (t.rank_b < 0) {
        // gossip: one op, two directions; it ends with the later
        auto& [left, end] = exchanges_[{t.rank_a, t.op_a}];
        if (left++ == 0) begin_comm(t.rank_a, now);
      } else {
        begin_comm(t.rank_a, now);
        begin_comm(t.rank_b, now);
      }
      flowing_.emplace(f.id, t);
    }
    share_.add(now, flows);
    batch_.clear();
  }

  // The transfers whose bytes have all left by `now` end one latency later.
  void drain_transfers(double now) {
    for (int id : share_.drain(now)) {
      const auto found = flowing_.find(id);
      const Transfer t = found->second;
      flowing_.erase(found);
      const double end = now + t.path.alpha;
      if (hold_) {
        for (int r : {t.rank_a, t.peer}) {
          const auto key = core_key_[static_cast<size_t>(r)];
          hold_core(r, end);
          if (--transfers_on_[key] == 0) start_deferred(key, now);
        }
      }
      if (t.rank_b < 0) {
        auto& [left, last] = exchanges_[{t.rank_a, t.op_a}];
        last = std::max(last, end);
        if (--left == 0) {
          end_comm(last, t.rank_a, t.op_a, t.start);
          exchanges_.erase({t.rank_a, t.op_a});
        }
        continue;
      }
      end_comm(end, t.rank_a, t.op_a, t.start);
      end_comm(end, t.rank_b, t.op_b, t.start);
    }
  }

  // comm_holds_cores: compute made ready while a transfer holds its core starts once none does.
  void start_deferred(std::pair<int, int> key, double now) {
    auto found = deferred_.find(key);
    if (found == deferred_.end()) return;
    const auto waiting = std::move(found->second);
    deferred_.erase(found);
    for (auto [e, seconds, under] : waiting) {
      e.time = now;
      if (abandoned(e.rank, iteration_[e.rank], e.op)) {
        push(now, true, e.rank, e.op, now, false);  // its quorum passed meanwhile
      } else {
        compute(e, seconds, under);
      }
    }
  }

  // A rank under contention communicates from `now` on: its compute slows (until end_comm's event).
  void begin_comm(int rank, double now) {
    if (kept_[rank] < 1 && communicating_[rank]++ == 0) retime(rank, now);
  }
  void end_comm(double end, int rank, int op, double start) {
    const long seq = push(end, true, rank, op, start);
    if (kept_[rank] < 1) in_flight_.insert(seq);
  }

  // A communication op's end (it began at `start`). A rank under contention communicates from then
  // on: its compute slows.
  void push_comm(double end, int rank, int op, double start) {
    const long seq = push(end, true, rank, op, start);
    if (kept_[rank] >= 1 || end <= start) return;
    in_flight_.insert(seq);
    if (communicating_[rank]++ == 0) retime(rank, start);
  }

  // A rank's compute under contention: one op at a time on its device (the others of its streams
  // wait in turn), `work` seconds of full-rate work at `under` of the rate while the rank
  // communicates.
  struct DeviceRun {
    int op = -1;
    long seq = -1;
    double start = 0;  // of the op
    double since = 0;  // of the current rate
    double work = 0;   // full-rate seconds left at `since`
    double under = 1;
    std::deque<std::tuple<int, double, double>> waiting;  // (op, work, under)
  };
  void contended_compute(int rank, int op, double now, double work, double under) {
    DeviceRun& d = device_run_[rank];
    if (d.op >= 0) {
      d.waiting.emplace_back(op, work, under);
      return;
    }
    d.op = op;
    d.start = d.since = now;
    d.work = work;
    d.under = under;
    schedule_run(rank);
  }
  double rate(int rank) const { return communicating_[rank] > 0 ? device_run_[rank].under : 1.0; }
  void schedule_run(int rank) {
    DeviceRun& d = device_run_[rank];
    const Profile* profile = plan_.speed_profile_of(rank);
    const double full = d.work / rate(rank);
    const double end = profile ? profile->finish(d.since, full) : d.since + full;
    d.seq = push(end, true, rank, d.op, d.start);
    running_[rank] = Running{d.op, d.seq, d.start, end};
  }
  // The rank's rate changed at `now`: the work done so far is taken off, the op's end moves.
  void retime(int rank, double now) {
    DeviceRun& d = device_run_[rank];
    if (d.op < 0) return;
    if (now > d.since) {
      const Profile* profile = plan_.speed_profile_of(rank);
      const double old_rate = communicating_[rank] > 0 ? 1.0 : d.under;  // before this change
      const double done = old_rate * (profile ? profile->work_between(d.since, now) : now - d.since);
      d.work = std::max(0.0, d.work - done);
      d.since = now;
    }
    schedule_again(rank);
  }
  void schedule_again(int rank) {
    DeviceRun& d = device_run_[rank];
    cancelled_.insert(d.seq);
    schedule_run(rank);
  }
  void start_next(int rank, double now) {
    DeviceRun& d = device_run_[rank];
    d.op = -1;
    d.seq = -1;
    if (d.waiting.empty()) return;
    const auto [op, work, under] = d.waiting.front();
    d.waiting.pop_front();
    contended_compute(rank, op, now, work, under);
  }

  void finish(const Event& e) {
    if (running_[e.rank].seq == e.seq) running_[e.rank].op = -1;
    if (!in_flight_.empty() && in_flight_.erase(e.seq) > 0 && --communicating_[e.rank] == 0) retime(e.rank, e.time);
    if (kept_[e.rank] < 1 && device_run_[e.rank].seq == e.seq) start_next(e.rank, e.time);
    const Op& op = plan_.ranks[e.rank].ops[e.op];
    if (e.record) {
      observer_.on_op(OpRecord{e.rank, iteration_[e.rank], e.op, e.start, e.time, e.cut});
      if (balance_.scales(e.rank, op)) balance_.record(e.rank, iteration_[e.rank], e.time - e.start);
    }
    for (int s : graphs_[e.rank].succs(e.op)) {
      if (--remaining_[e.rank][s] == 0) push(e.time, false, e.rank, s);
    }
    if (++done_count_[e.rank] == static_cast<int>(plan_.ranks[e.rank].ops.size())) {
      ++iteration_[e.rank];
      start_iteration(e.rank, e.time);
    }
  }

  const ClusterSpec& cluster_;
  const Plan& plan_;
  cost::CostModel costs_;
  Observer& observer_;
  BatchBalancer balance_;
  std::vector<OpGraph> graphs_;
  std::vector<std::vector<int>> remaining_;
  std::vector<int> done_count_;
  std::vector<int> present_;  // by group: its members with a program
  std::vector<int> iteration_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  long seq_ = 0;
  std::map<std::tuple<int, int, int>, std::vector<std::pair<int, int>>> collectives_;
  std::set<std::tuple<int, int, int>> prepared_;  // (rank, op, iteration) past its host work
  std::vector<double> posted_free_;               // by rank: when its posted stream's host work ends
  std::map<std::tuple<int, int, int, int>, std::pair<int, int>> pending_p2p_;
  PortShare share_;                            // the transfers in flight
  std::unordered_map<int, Transfer> flowing_;  // by flow id
  int next_flow_ = 0;
  std::map<std::pair<int, int>, std::pair<int, double>> exchanges_;  // gossip op: directions left, last end
  std::map<std::pair<int, int>, int> transfers_on_;                  // comm_holds_cores: transfers holding each core
  std::map<std::pair<int, int>, std::vector<std::tuple<Event, double, double>>> deferred_;  // compute waiting for them
  bool hold_ = false;                                                                       // comm_holds_cores
  std::vector<std::pair<int, int>> core_key_;         // each rank's device_free_ key
  std::map<std::pair<int, int>, double> comm_until_;  // by device_free_ key: communication holds it until
  std::list<Held> held_;                              // communication waiting for its cores
  std::vector<Transfer> batch_;
  struct GateWait {
    int rank, op, required;
    double since;
  };
  std::map<std::pair<int, int>, double> device_free_;  // by (node, local), or (-1, core) on shared cores
  std::map<int, std::vector<int>> gate_progress_;      // per job: gates reached by each worker
  std::map<int, std::vector<GateWait>> gate_waiting_;  // per job
  struct Running {
    int op;
    long seq;  // of its done event
    double start;
    double end;  // when it would have ended (the device's free time it set)
  };
  std::vector<Running> running_;                 // the compute op each rank is running
  std::vector<double> kept_;                     // by rank: the fraction of its compute rate kept while it communicates
  std::vector<int> communicating_;               // by rank: its communication ops in flight (under contention)
  std::unordered_set<long> in_flight_;           // done events of those ops
  std::vector<DeviceRun> device_run_;            // by rank, under contention
  std::unordered_set<long> cancelled_;           // done events of abandoned ops
  std::vector<int> quorum_op_;                   // each rank's quorum op, or -1
  std::set<std::pair<int, int>> quorum_passed_;  // (job, iteration)
  std::map<std::pair<int, int>, std::vector<GateWait>> quorum_arrived_;  // (job, iteration)
};

}  // namespace

RunInfo AnalyticalExecutor::run(const Plan& plan, Observer& observer) {
  const auto t0 = std::chrono::steady_clock::now();
  Scheduler(cluster_, plan, observer).run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return RunInfo{std::string(engine_name(Engine::Analytical)), "closed_form", wall,
                 cost::CostModel(cluster_, plan).composite_timings()};
}

}  // namespace dtsim::analytical
