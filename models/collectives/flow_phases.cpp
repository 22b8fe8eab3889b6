// Flow phases of collectives, what a replaying engine sends: one phase per round (step
// fidelity) or consecutive rounds with the same pairs merged (flow fidelity); their time on
// uncontended links (flow_phase_time) and the bytes each rank sends.
#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "models/collectives/detail.hpp"

namespace dtsim {
namespace {

bool pair_less(const Flow& a, const Flow& b) { return a.src != b.src ? a.src < b.src : a.dst < b.dst; }

bool same_pair(const Flow& a, const Flow& b) { return a.src == b.src && a.dst == b.dst; }

// Sorts flows by (src, dst), keeping the given order among same-pair flows, and merges those,
// summing their bytes in that order.
void normalize(std::vector<Flow>& flows) {
  if (std::is_sorted(flows.begin(), flows.end(), pair_less)) {
    if (std::adjacent_find(flows.begin(), flows.end(), same_pair) == flows.end()) return;
  } else {
    std::stable_sort(flows.begin(), flows.end(), pair_less);
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    if (kept > 0 && same_pair(flows[kept - 1], flows[i])) {
      flows[kept - 1].bytes += flows[i].bytes;
    } else {
      flows[kept++] = flows[i];
    }
  }
  flows.resize(kept);
}

bool same_pairs(const std::vector<Flow>& a, const std::vector<Flow>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), same_pair);
}

}  // namespace

std::vector<FlowPhase> step_phases(const Schedule& schedule) {
  std::vector<FlowPhase> steps;
  steps.reserve(schedule.rounds.size());
  for (const Round& round : schedule.rounds) {
    FlowPhase& step = steps.emplace_back();
    step.flows.reserve(round.transfers.size());
    for (const Transfer& t : round.transfers) step.flows.push_back({t.src, t.dst, t.bytes});
    normalize(step.flows);
  }
  return steps;
}

std::vector<FlowPhase> merge_phases(const std::vector<FlowPhase>& steps) {
  collectives::PhaseBuilder builder;
  for (const FlowPhase& step : steps) builder.add_phase(step);
  return builder.take();
}

FlowPhase one_phase(const std::vector<FlowPhase>& phases) {
  FlowPhase all;
  for (const FlowPhase& phase : phases) {
    all.flows.insert(all.flows.end(), phase.flows.begin(), phase.flows.end());
  }
  normalize(all.flows);
  return all;
}

std::vector<FlowPhase> CollectiveAlgorithm::flow_phases(CollectiveKind kind, const GroupShape& group,
                                                        double bytes) const {
  return merge_phases(step_phases(schedule(kind, group, bytes)));
}

double flow_phase_time(const std::vector<FlowPhase>& phases, const GroupShape& group, const AlphaBeta& ab) {
  validate_group(group);
  // load[(rank * 2 + class) * 2 + direction]: bytes out (0) and in (1) per class (0 intra, 1 inter).
  std::vector<double> load(static_cast<std::size_t>(group.size) * 4, 0.0);
  std::vector<int> touched;
  double total = 0;
  for (const FlowPhase& phase : phases) {
    std::array<bool, 2> used{};
    touched.clear();
    for (const Flow& f : phase.flows) {
      if (f.src < 0 || f.src >= group.size || f.dst < 0 || f.dst >= group.size) {
        throw RuntimeError(
            fmt::format("flow phase sends from rank {} to rank {} in a group of {}", f.src, f.dst, group.size));
      }
      const std::size_t cls = group.same_node(f.src, f.dst) ? 0 : 1;
      used[cls] = true;
      load[(static_cast<std::size_t>(f.src) * 2 + cls) * 2] += f.bytes;
      load[(static_cast<std::size_t>(f.dst) * 2 + cls) * 2 + 1] += f.bytes;
      touched.push_back(f.src);
      touched.push_back(f.dst);
    }
    std::array<double, 2> worst{};
    for (int r : touched) {
      for (std::size_t cls = 0; cls < 2; ++cls) {
        const std::size_t at = (static_cast<std::size_t>(r) * 2 + cls) * 2;
        worst[cls] = std::max({worst[cls], load[at], load[at + 1]});
        load[at] = 0;
        load[at + 1] = 0;
      }
    }
    double phase_time = 0;
    if (used[0]) phase_time = phase.rounds * ab.alpha_intra + worst[0] / ab.bw_intra;
    if (used[1]) phase_time = std::max(phase_time, phase.rounds * ab.alpha_inter + worst[1] / ab.bw_inter);
    total += phase_time;
  }
  return total;
}

std::vector<double> bytes_sent(const std::vector<FlowPhase>& phases, int group_size) {
  std::vector<double> sent(static_cast<std::size_t>(std::max(group_size, 0)), 0.0);
  for (const FlowPhase& phase : phases) {
    for (const Flow& f : phase.flows) {
      if (f.src < 0 || f.src >= group_size) {
        throw RuntimeError(fmt::format("flow phase sends from rank {} in a group of {}", f.src, group_size));
      }
      sent[static_cast<std::size_t>(f.src)] += f.bytes;
    }
  }
  return sent;
}

namespace collectives {

double repeated_sum(double x, int times) {
  if (times < 1) return 0;
  double sum = x;
  for (int i = 1; i < times; ++i) sum += x;
  return sum;
}

void add_ring_flows(std::vector<Flow>& out, const std::vector<int>& members, double bytes) {
  const std::size_t n = members.size();
  if (n < 2) return;
  for (std::size_t i = 0; i < n; ++i) out.push_back({members[i], members[(i + 1) % n], bytes});
}

void PhaseBuilder::add_phase(FlowPhase phase) {
  normalize(phase.flows);
  if (phases_.empty() || !same_pairs(phases_.back().flows, phase.flows)) {
    phases_.push_back(std::move(phase));
    return;
  }
  FlowPhase& last = phases_.back();
  for (std::size_t i = 0; i < phase.flows.size(); ++i) last.flows[i].bytes += phase.flows[i].bytes;
  last.rounds += phase.rounds;
}

void PhaseBuilder::add_rounds(std::vector<Flow> flows, int rounds) {
  if (rounds < 1) return;
  normalize(flows);
  int more = rounds;
  if (phases_.empty() || !same_pairs(phases_.back().flows, flows)) {
    phases_.push_back({flows, 1});
    --more;
  }
  FlowPhase& last = phases_.back();
  if (more == 0) return;
  last.rounds += more;
  // Each flow's bytes grow by its per-round bytes `more` times, one addition at a time as
  // merge_phases would add them; flows starting from the same bytes share the result.
  double from = 0;
  double per_round = 0;
  double result = 0;
  bool known = false;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    double& bytes = last.flows[i].bytes;
    if (!known || bytes != from || flows[i].bytes != per_round) {
      from = bytes;
      per_round = flows[i].bytes;
      result = bytes;
      for (int j = 0; j < more; ++j) result += per_round;
      known = true;
    }
    bytes = result;
  }
}

}  // namespace collectives
}  // namespace dtsim
