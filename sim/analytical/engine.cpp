// The analytical engine's scheduler: a time-ordered event loop over every rank's program.
#include "sim/analytical/engine.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <variant>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/executors.hpp"
#include "core/plan/batch_balance.hpp"
#include "models/cost/comm_keys.hpp"
#include "models/cost/cores.hpp"
#include "models/cost/cost_model.hpp"
#include "sim/analytical/backup_quorums.hpp"
#include "sim/analytical/contention.hpp"
#include "sim/analytical/core_holds.hpp"
#include "sim/analytical/device_turns.hpp"
#include "sim/analytical/event_queue.hpp"
#include "sim/analytical/host_work.hpp"
#include "sim/analytical/rank_progress.hpp"
#include "sim/analytical/rendezvous.hpp"
#include "sim/analytical/ssp_gates.hpp"
#include "sim/analytical/transfers.hpp"

namespace dtsim::analytical {
namespace {

using cost::CollectiveInstance;
using cost::GossipInstance;
using cost::MessageInstance;
using cost::OpInstance;

// The event loop: an op made ready is handed to the concern of its kind (a visit over the op's
// body); an op done is recorded and makes its successors ready. Each concern is a class of its own:
//   EventQueue     the events in time order, and the done events cancelled (event_queue.hpp)
//   RankProgress   each rank's iteration and the ops waiting for their deps (rank_progress.hpp)
//   Rendezvous     a collective's members and a message's two sides meeting (rendezvous.hpp)
//   HostWork       the host work before a collective or a send (host_work.hpp)
//   Transfers      point-to-point transfers sharing the ports they cross (transfers.hpp)
//   SspGates, BackupQuorums  the SSP and backup-worker policies' synchronisation
//   DeviceTurns    ranks taking turns on a shared device (device_turns.hpp)
//   CoreHolds      communication holding the ranks' cores (cpu-backend profiles, core_holds.hpp)
//   Contention     compute slowed while its rank communicates (contention.hpp)
// What names a communication among these is in models/cost/comm_keys.hpp, which both engines share.
class Scheduler {
 public:
  Scheduler(const ClusterSpec& cluster, const Plan& plan, Observer& observer)
      : plan_(plan),
        costs_(cluster, plan),
        observer_(observer),
        balance_(plan),
        progress_(plan, events_),
        rendezvous_(cluster, plan, costs_),
        host_(plan),
        gates_(plan, events_),
        turns_(cluster, plan, events_),
        holds_(cluster, turns_, [this](const Event& e, double seconds, double under) { resume(e, seconds, under); }),
        contention_(cluster, plan, events_, turns_),
        quorums_(plan, events_, progress_, turns_, contention_),
        transfers_(cluster, plan, costs_, holds_, contention_) {}

  void run() {
    for (size_t r = 0; r < plan_.ranks.size(); ++r) progress_.start(static_cast<int>(r), 0.0);
    while (!events_.empty() || !transfers_.empty()) {
      const double now =
          std::min(events_.empty() ? transfers_.next_drain() : events_.next_time(), transfers_.next_drain());
      if (transfers_.next_drain() <= now) transfers_.drain(now);
      while (!events_.empty() && events_.next_time() == now) {
        const Event e = events_.pop();
        if (e.done) {
          if (!events_.dropped(e.seq)) finish(e);
        } else {
          ready(e);
        }
      }
      if (holds_.enabled()) holds_.release(now);
      transfers_.flush(now);
    }
    if (!progress_.complete())
      throw RuntimeError(
          "analytical engine: the plan deadlocks (unmatched collective or "
          "send/recv)");
  }

 private:
  void ready(const Event& e) {
    const Op& op = plan_.ranks[e.rank].ops[e.op];
    const int it = progress_.iteration(e.rank);
    if (!op.runs_in(it) || quorums_.abandoned(e.rank, it, e.op)) {
      events_.push(e.time, true, e.rank, e.op, e.time, false);
      return;
    }
    std::visit([&](const auto& body) { ready(e, it, body); }, op.body);
  }

  void ready(const Event& e, int it, const ComputeOp& c) {
    const RankProgram& rank = plan_.ranks[e.rank];
    const double slow = plan_.slowdown_of(e.rank, it);
    const double share = balance_.scales(e.rank, rank.ops[e.op]) ? balance_.scale(e.rank, it) : 1.0;
    // Under contention a composite's communication parts are not slowed (cost::composite_kept).
    const double kept = contention_.kept(e.rank);
    const double under =
        c.composite >= 0 && kept < 1 ? cost::composite_kept(kept, costs_.composite_timing(c.composite)) : kept;
    compute(e, costs_.compute_time(rank, c) * slow * share, under);
  }

  void ready(const Event& e, int it, const UpdateOp& u) {
    const double slow = plan_.slowdown_of(e.rank, it);
    compute(e, costs_.update_time(plan_.ranks[e.rank], u) * slow, contention_.kept(e.rank));
  }

  void ready(const Event& e, int it, const CollectiveOp& col) {
    // The rank's own work around the collective (filling and checking its buffer, measured by
    // calibration) keeps its comm stream busy first; the collective starts once every rank is in.
    const double host = costs_.collective_host_time(col);
    if (host > 0 && !host_.past(OpInstance{e.rank, e.op, it})) {
      events_.push(e.time + host, false, e.rank, e.op);
      return;
    }
    std::vector<Party> members = rendezvous_.arrive(CollectiveInstance{col.group, col.seq, it}, Party{e.rank, e.op});
    if (members.empty()) return;
    auto begin = [this, &col, members](double now) {
      const double end = rendezvous_.collective_end(col, now);
      for (const Party& m : members) {
        contention_.comm(end, m.rank, m.op, now);
        if (holds_.enabled()) holds_.hold(m.rank, end);
      }
    };
    if (holds_.enabled()) {
      std::vector<int> ranks;
      for (const Party& m : members) ranks.push_back(m.rank);
      holds_.wait(ranks, begin);
    } else {
      begin(e.time);
    }
  }

  void ready(const Event& e, int it, const SendOp& s) {
    // A worker fills each push first, one after the other on its posted stream.
    const double host = costs_.send_host_time(plan_.ranks[e.rank], s);
    if (host > 0 && !host_.past(OpInstance{e.rank, e.op, it})) {
      events_.push(host_.posted(e.rank, e.time, host), false, e.rank, e.op);
      return;
    }
    message(e, MessageInstance{e.rank, s.peer, s.tag, it}, s.bytes);
  }

  void ready(const Event& e, int it, const RecvOp& r) {
    message(e, MessageInstance{r.peer, e.rank, r.tag, it}, r.bytes);
  }

  void ready(const Event& e, int it, const GateOp& g) { gates_.arrive(e, g, it); }

  void ready(const Event& e, int it, const QuorumOp& q) { quorums_.arrive(e, q, it); }

  void ready(const Event& e, int it, const GossipOp& g) {
    transfers_.gossip(GossipInstance{e.rank, it}, Party{e.rank, e.op}, plan_.gossip_peer[e.rank][it], g.bytes);
  }

  // Both sides posted: the transfer joins the batch of transfers that start at this instant.
  void message(const Event& e, const MessageInstance& m, double bytes) {
    if (const std::optional<Party> first = rendezvous_.arrive(m, Party{e.rank, e.op}))
      transfers_.message(m, bytes, Party{e.rank, e.op}, *first);
  }

  // `seconds` of compute at full speed; `under`: the fraction of its rate the op keeps while its
  // rank communicates (contention). An op of no work (compression at cost_scale 0) does not wait
  // for its device.
  void compute(const Event& e, double seconds, double under) {
    if (seconds <= 0) {
      events_.push(e.time, true, e.rank, e.op, e.time);
      return;
    }
    if (holds_.enabled() && holds_.defer(e, seconds, under)) return;
    if (contention_.contended(e.rank)) {
      contention_.compute(e.rank, e.op, e.time, seconds, under);
      return;
    }
    turns_.start(e, seconds, holds_.until(e.rank));
  }

  // Compute that waited for a transfer holding its core starts now, unless its quorum passed meanwhile.
  void resume(const Event& e, double seconds, double under) {
    if (quorums_.abandoned(e.rank, progress_.iteration(e.rank), e.op)) {
      events_.push(e.time, true, e.rank, e.op, e.time, false);
    } else {
      compute(e, seconds, under);
    }
  }

  void finish(const Event& e) {
    turns_.finished(e.rank, e.seq);
    contention_.finished(e);
    const Op& op = plan_.ranks[e.rank].ops[e.op];
    if (e.record) {
      const int it = progress_.iteration(e.rank);
      observer_.on_op(OpRecord{e.rank, it, e.op, e.start, e.time, e.cut});
      if (balance_.scales(e.rank, op)) balance_.record(e.rank, it, e.time - e.start);
    }
    progress_.done(e.rank, e.op, e.time);
  }

  const Plan& plan_;
  cost::CostModel costs_;
  Observer& observer_;
  BatchBalancer balance_;
  EventQueue events_;
  RankProgress progress_;
  Rendezvous rendezvous_;
  HostWork host_;
  SspGates gates_;
  DeviceTurns turns_;
  CoreHolds holds_;
  Contention contention_;
  BackupQuorums quorums_;
  Transfers transfers_;
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
