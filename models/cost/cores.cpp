// What each rank computes on, and whether communication takes the ranks' cores.
#include "models/cost/cores.hpp"

#include <algorithm>
#include <map>

#include "core/calibration/calibration.hpp"

namespace dtsim::cost {

std::vector<int> shared_cores(const ClusterSpec& cluster, const Plan& plan) {
  if (!cluster.calibration) return {};
  const MachineInfo& m = cluster.calibration->machine;
  const int ranks = static_cast<int>(plan.ranks.size());
  if (m.hosts != 1 || m.cores <= 0 || m.ranks != ranks || ranks <= m.cores) return {};
  std::vector<int> core(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) core[static_cast<size_t>(r)] = r % m.cores;
  return core;
}

std::vector<std::pair<int, int>> compute_devices(const ClusterSpec& cluster, const Plan& plan) {
  const std::vector<int> core = shared_cores(cluster, plan);
  std::vector<std::pair<int, int>> out;
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    const Placement& where = plan.ranks[r].where;
    out.push_back(core.empty() ? std::make_pair(where.node, where.local) : std::make_pair(-1, core[r]));
  }
  return out;
}

bool comm_holds_cores(const ClusterSpec& cluster) {
  // cluster.contention.compute: 1 is no contention in every model, the cores' included.
  return cluster.calibration && cluster.calibration->machine.backend == Backend::Cpu &&
         cluster.compute_under_comm != 1.0;
}

double measured_compute_kept(const ClusterSpec& cluster) {
  const CalibrationProfile* p = cluster.calibration.get();
  if (!p || !p->contention || p->machine.backend != Backend::Cuda || p->machine.ranks < 2) return 0;
  return p->contention_rates().compute_kept;
}

double composite_kept(double kept, const CompositeTiming& t) {
  const double slowed = t.duration + t.compute_s * (1 / kept - 1);
  return slowed > 0 ? t.duration / slowed : kept;
}

namespace {

// A profile's measured figure where cluster.contention.compute is not set, else 0.
double measured_unless_set(const ClusterSpec& cluster) {
  return cluster.compute_under_comm > 0 ? 0 : measured_compute_kept(cluster);
}

// What a rank keeps (compute_kept), given whether other ranks share its device.
double kept_by(const ClusterSpec& cluster, const RankProgram& rank, bool shared, double measured) {
  if (rank.role != Role::Worker || shared) return 1.0;
  return measured > 0 ? measured : cluster.compute_kept_at(rank.where.node);
}

}  // namespace

std::vector<double> compute_kept(const ClusterSpec& cluster, const Plan& plan) {
  std::vector<double> kept(plan.ranks.size(), 1.0);
  if (comm_holds_cores(cluster)) return kept;
  const std::vector<std::pair<int, int>> devices = compute_devices(cluster, plan);
  std::map<std::pair<int, int>, int> sharing;
  for (const auto& d : devices) ++sharing[d];
  const double measured = measured_unless_set(cluster);
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    kept[r] = kept_by(cluster, plan.ranks[r], sharing[devices[r]] > 1, measured);
  }
  return kept;
}

double compute_kept_of(const ClusterSpec& cluster, const Plan& plan, int rank) {
  if (comm_holds_cores(cluster)) return 1.0;
  const std::vector<std::pair<int, int>> devices = compute_devices(cluster, plan);
  const auto r = static_cast<size_t>(rank);
  return kept_by(cluster, plan.ranks[r], std::count(devices.begin(), devices.end(), devices[r]) > 1,
                 measured_unless_set(cluster));
}

}  // namespace dtsim::cost
