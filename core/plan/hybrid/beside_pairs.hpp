// TP communication overlap in a hybrid plan (models/parallel/transformer_ops.hpp): which neighbouring steps are a
// collective and the GEMM it runs beside, and the composite of the two (Composite::beside) a rank's plan runs them as.
#pragma once

#include <functional>
#include <map>
#include <tuple>
#include <vector>

#include "core/plan/plan.hpp"
#include "models/parallel/transformer_ops.hpp"

namespace dtsim {

// Whether steps i and i + 1 are a collective and the GEMM it runs beside: a marked all-gather before its GEMM or a
// marked reduce-scatter after it, over a tensor group within one node (userbuffers exchange over NVLink; a group
// across nodes runs its collectives alone). `group_of`: the plan group of a group kind for this rank, or -1.
bool beside_pair(const Plan& plan, const std::vector<KernelStep>& steps, size_t i,
                 const std::function<int(GroupKind)>& group_of);

// How steps i and i + 1 (beside_pair) run side by side, the first of them part `first` of its composite: the
// collective's pieces and the SMs it holds.
Composite::Beside beside_of(const std::vector<KernelStep>& steps, size_t i, int first);

// One rank's pair composites, one per step list, position and phase, shared by every block and micro-batch.
class BesidePairs {
 public:
  using MakePart = std::function<Op(const KernelStep&)>;  // a step as a composite's part (its collective unnumbered)
  // The compute op standing for the composite of steps i and i + 1 (beside_pair), made now or found.
  Op op(Plan& plan, int rank, const std::vector<KernelStep>& steps, size_t i, Phase phase, Dtype dtype,
        const MakePart& part);
  void clear() { composites_.clear(); }

 private:
  std::map<std::tuple<const std::vector<KernelStep>*, size_t, Phase>, int> composites_;
};

}  // namespace dtsim
