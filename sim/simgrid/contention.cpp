// Contention as a host's pstates: 0 at full speed, the others while its rank communicates.
#include "sim/simgrid/contention.hpp"

#include <algorithm>

#include "models/cost/cores.hpp"
#include "models/cost/cost_model.hpp"

namespace dtsim::sg {

ContentionRates contention_rates(const ClusterSpec& cluster, const Plan& plan) {
  const std::vector<double> kept = cost::compute_kept(cluster, plan);
  ContentionRates out{std::vector<std::vector<double>>(plan.ranks.size()),
                      std::vector<std::map<int, int>>(plan.ranks.size())};
  const cost::CostModel costs(cluster, plan);
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    if (kept[r] >= 1) continue;
    std::vector<double>& f = out.factors[r];
    f.push_back(kept[r]);
    for (const Op& op : plan.ranks[r].ops) {
      const auto* c = std::get_if<ComputeOp>(&op.body);
      if (!c || c->composite < 0 || out.composite_pstate[r].count(c->composite)) continue;
      const double rate = cost::composite_kept(kept[r], costs.composite_timing(c->composite));
      const auto found = std::find(f.begin(), f.end(), rate);
      if (found == f.end()) f.push_back(rate);
      out.composite_pstate[r][c->composite] = 1 + static_cast<int>(std::find(f.begin(), f.end(), rate) - f.begin());
    }
  }
  return out;
}

Contention::Contention(const ClusterSpec& cluster, const Plan& plan, const Platform& platform)
    : platform_(platform),
      rates_(contention_rates(cluster, plan)),
      communicating_(plan.ranks.size(), 0),
      slowed_(plan.ranks.size(), 1),
      changes_(plan.ranks.size()) {}

double Contention::speed_of(int rank, int pstate) const {
  return pstate == 0 ? 1.0 : rates_.factors[static_cast<size_t>(rank)][static_cast<size_t>(pstate - 1)];
}

void Contention::apply(int rank) {
  const int pstate = communicating_[static_cast<size_t>(rank)] > 0 ? slowed_[static_cast<size_t>(rank)] : 0;
  simgrid::s4u::Host* host = platform_.rank_hosts[rank];
  if (host->get_pstate() != static_cast<unsigned long>(pstate)) host->set_pstate(pstate);
  std::vector<SpeedChange>& log = changes_[static_cast<size_t>(rank)];
  const double speed = speed_of(rank, pstate);
  if (log.empty() || log.back().speed != speed) log.push_back({simgrid::s4u::Engine::get_clock(), speed});
}

double Contention::finish(int rank, double start, double work) const {
  const std::vector<SpeedChange>& log = changes_[static_cast<size_t>(rank)];
  if (log.empty()) return start + work;
  // The speed in force at `start`, then each later change in turn.
  size_t i = 0;
  while (i + 1 < log.size() && log[i + 1].time <= start) ++i;
  double t = start;
  for (; i + 1 < log.size(); ++i) {
    const double until = log[i + 1].time;
    const double can = (until - t) * log[i].speed;
    if (can >= work) return t + work / log[i].speed;
    work -= can;
    t = until;
  }
  return t + work / log[i].speed;
}

void Contention::begin(int rank) {
  if (!on(rank)) return;
  if (communicating_[static_cast<size_t>(rank)]++ == 0) apply(rank);
}

void Contention::end(int rank) {
  if (!on(rank)) return;
  if (--communicating_[static_cast<size_t>(rank)] == 0) apply(rank);
}

void Contention::computing(int rank, const Op& op) {
  if (!on(rank)) return;
  const auto* c = std::get_if<ComputeOp>(&op.body);
  const auto& table = rates_.composite_pstate[static_cast<size_t>(rank)];
  const auto found = c && c->composite >= 0 ? table.find(c->composite) : table.end();
  slowed_[static_cast<size_t>(rank)] = found == table.end() ? 1 : found->second;
  changes_[static_cast<size_t>(rank)].clear();
  apply(rank);
}

void Contention::done_computing(int rank) {
  if (!on(rank)) return;
  slowed_[static_cast<size_t>(rank)] = 1;
  apply(rank);
}

}  // namespace dtsim::sg
