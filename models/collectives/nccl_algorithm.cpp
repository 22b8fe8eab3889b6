// NCCL's choice (strategy.allreduce.algorithm: nccl): what NCCL picks and how long it takes come from NCCL's own
// cost model on the cluster's nodes (models/collectives/nccl/, docs/collectives.md), which needs the cluster this
// table does not see: models/cost's CostModel times the collective with it, and the SimGrid engine replays it as the
// flows below, stretched to that time (CostModel::nccl_replay). The flows are a ring's, a direct exchange's for
// AllToAll (NCCL runs it as grouped sends and receives), and so is the closed form given here, which only callers
// without a cluster use.
#include <string>

#include "models/collectives/detail.hpp"

namespace dtsim::collectives {
namespace {

class NcclChoice final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "nccl"; }
  std::string_view description() const override {
    return "NCCL's own choice and time by its cost model (docs/collectives.md), replayed as a ring's flows";
  }
  std::string unsupported_reason(CollectiveKind kind, const GroupShape& group) const override {
    return flows_of(kind).unsupported_reason(kind, group);
  }
  Schedule schedule(CollectiveKind kind, const GroupShape& group, double bytes) const override {
    return flows_of(kind).schedule(kind, group, bytes);
  }
  double closed_form(CollectiveKind kind, const GroupShape& group, double bytes, const AlphaBeta& ab) const override {
    return flows_of(kind).closed_form(kind, group, bytes, ab);
  }
  std::vector<FlowPhase> flow_phases(CollectiveKind kind, const GroupShape& group, double bytes) const override {
    return flows_of(kind).flow_phases(kind, group, bytes);
  }

 private:
  static const CollectiveAlgorithm& flows_of(CollectiveKind kind) {
    return kind == CollectiveKind::AllToAll ? direct_algorithm() : ring_algorithm();
  }
};

}  // namespace

const CollectiveAlgorithm& nccl_algorithm() {
  static const NcclChoice instance;
  return instance;
}

}  // namespace dtsim::collectives

namespace dtsim {

bool follows_nccl(const CollectiveAlgorithm& algorithm) { return &algorithm == &collectives::nccl_algorithm(); }

}  // namespace dtsim
