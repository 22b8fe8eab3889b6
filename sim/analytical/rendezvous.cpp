// Where the parties of a communication meet in the analytical engine (rendezvous.hpp).
#include "sim/analytical/rendezvous.hpp"

#include <algorithm>
#include <utility>

namespace dtsim::analytical {

Rendezvous::Rendezvous(const ClusterSpec& cluster, const Plan& plan, const cost::CostModel& costs)
    : cluster_(cluster), plan_(plan), costs_(costs) {
  present_.assign(plan.groups.size(), 0);
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    for (int r : plan.groups[g].ranks) present_[g] += plan.ranks[r].ops.empty() ? 0 : 1;
  }
}

std::vector<Party> Rendezvous::arrive(const cost::CollectiveInstance& c, Party p) {
  auto found = collectives_.try_emplace(c).first;
  std::vector<Party>& waiting = found->second;
  waiting.push_back(p);
  if (static_cast<int>(waiting.size()) != present_[c.group]) return {};
  std::vector<Party> members = std::move(waiting);
  collectives_.erase(found);
  return members;
}

std::optional<Party> Rendezvous::arrive(const cost::MessageInstance& m, Party p) {
  auto found = messages_.find(m);
  if (found == messages_.end()) {
    messages_.emplace(m, p);
    return std::nullopt;
  }
  const Party other = found->second;
  messages_.erase(found);
  return other;
}

double Rendezvous::collective_end(const CollectiveOp& col, double now) const {
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

}  // namespace dtsim::analytical
