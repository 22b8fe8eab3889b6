// TP communication overlap's pairs in a hybrid plan (beside_pairs.hpp).
#include "core/plan/hybrid/beside_pairs.hpp"

namespace dtsim {

bool beside_pair(const Plan& plan, const std::vector<KernelStep>& steps, size_t i,
                 const std::function<int(GroupKind)>& group_of) {
  if (i + 1 >= steps.size()) return false;
  const KernelStep& a = steps[i];
  const KernelStep& b = steps[i + 1];
  const bool marked = (a.beside.on() && a.kind == CollectiveKind::AllGather && !b.collective) ||
                      (b.beside.on() && b.kind == CollectiveKind::ReduceScatter && !a.collective);
  if (!marked) return false;
  const int g = group_of((a.collective ? a : b).group);
  if (g < 0) return false;
  const CommGroup& group = plan.groups[g];
  return group.per_node == static_cast<int>(group.ranks.size());
}

Composite::Beside beside_of(const std::vector<KernelStep>& steps, size_t i, int first) {
  const KernelStep::Overlap& o = (steps[i].collective ? steps[i] : steps[i + 1]).beside;
  return Composite::Beside{first, o.chunks, o.sm_margin};
}

Op BesidePairs::op(Plan& plan, int rank, const std::vector<KernelStep>& steps, size_t i, Phase phase, Dtype dtype,
                   const MakePart& part) {
  const auto key = std::make_tuple(&steps, i, phase);
  auto found = composites_.find(key);
  if (found == composites_.end()) {
    Composite pair{rank, {}, {beside_of(steps, i, 0)}};
    for (size_t k = i; k < i + 2; ++k) {
      pair.parts.push_back(part(steps[k]));
      pair.parts.back().id = static_cast<int>(k - i);
    }
    found = composites_.emplace(key, static_cast<int>(plan.composites.size())).first;
    plan.composites.push_back(std::move(pair));
  }
  ComputeOp whole{0, 0, dtype};
  whole.composite = found->second;
  for (const Op& p : plan.composites[found->second].parts) {
    if (const auto* c = std::get_if<ComputeOp>(&p.body)) {
      whole.flops += c->flops;
      whole.mem_bytes += c->mem_bytes;
    }
  }
  Op op;
  op.phase = phase;
  op.body = whole;
  return op;
}

}  // namespace dtsim
