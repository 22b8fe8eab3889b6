// The iteration time of one hybrid layout in closed form: what `dtsim tune` ranks thousands of
// layouts by before the engines time the best. It takes every cost from the cost model the engines
// use (kernels on the stage's device, collectives' closed forms over the layout's groups, the
// pipeline link, the optimizer step), and replaces the event loop with the schedule's formula.
//
// Per micro-batch, pipeline rank s of p runs its v chunks' forward F_s and backward B_s (blocks,
// recompute, the first stage's embedding, the last stage's head, tensor-parallel collectives and
// the receives' gathers on the compute stream). Over m micro-batches, with P a pipeline message,
// C_s = F_s + B_s, C_max its largest and C_mean its mean over the stages:
//   pipeline  = m C_max + (p - 1) C_mean / v + 2 (p - 1) P        (Narayanan et al. 2021, 2.2)
//   bubble    = pipeline - m C_max
// ZeRO-3 gathers each block's parameters before its forward and backward and reduce-scatters its
// gradients every micro-batch on the comm stream, one block ahead: a micro-batch costs
// max(C_s, Z_s) + its overlap's contention, Z_s those collectives.
// The data-parallel reduction of rank s (buckets of its gradients, all-reduced or, under ZeRO,
// reduce-scattered) starts with its last backward, which ends s (B + P) before the first stage's:
//   exposed_s = max(last bucket, R_s - B_s) - s (B_mean + P), at least 0
// Compute beside communication keeps the fraction `kept` of its rate (cost::compute_kept): an
// overlap of length o costs o (1 / kept - 1) more. Then every rank waits for the slowest:
//   iteration = overhead + pipeline + max_s exposed_s + norm + its all-reduce + step + ZeRO 1/2 gather
// The analytical engine replays the same ops event by event; tests/sim/tune/layout_cost_test.cpp
// holds this form to it on a sample of layouts.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/scenario/scenario.hpp"
#include "models/collectives/collective.hpp"
#include "models/parallel/hybrid.hpp"
#include "models/parallel/layout.hpp"

namespace dtsim::tune {

struct LayoutCost {
  double iteration_s = 0;
  double pipeline_s = 0;  // the schedule's span (work, bubble and pipeline messages)
  double bubble_s = 0;
  // Exposed communication per iteration by group kind (GroupKind order): tensor-parallel collectives
  // on the compute stream, the data-parallel reduction's tail, ZeRO's gathers.
  std::array<double, kGroupKinds> exposed_s{};
};

class LayoutCoster {
 public:
  // The scenario's job `job` (a hybrid job of a transformer); costs use its cluster and framework.
  LayoutCoster(const Scenario& s, size_t job);
  ~LayoutCoster();
  LayoutCoster(const LayoutCoster&) = delete;
  LayoutCoster& operator=(const LayoutCoster&) = delete;

  // `layout.data` resolved; a layout the rules allow (layout_rules.hpp).
  LayoutCost cost(const HybridSpec& layout);

 private:
  struct Probe;      // a plan of the layout's shape: its ranks placed and its groups
  struct StepTimes;  // one micro-batch's work of a block, embedding and head, per stage
  const Probe& probe(const HybridSpec& layout);
  const StepTimes& steps(const HybridSpec& layout);

  Scenario scenario_;
  size_t job_;
  const CollectiveAlgorithm* algorithm_ = nullptr;  // the job's strategy.algorithm
  std::map<std::tuple<int, int, int, int, std::string>, std::unique_ptr<Probe>> probes_;  // (t, c, e, p, order)
  std::tuple<int, int, int> probed_shape_{0, 0, 0};                                       // probes_' (t, c, p)
  std::map<std::tuple<int, int, int, int, int, bool, int, int, int, std::string>, std::unique_ptr<StepTimes>> steps_;
};

}  // namespace dtsim::tune
