// `dtsim kernels`: one rank's work in one iteration as a table of kernels and collectives, each with its class,
// shape, waves, what bounds it and what it costs, so a user sees where a step's time goes. Ops that are the same
// work (a transformer's blocks and micro-batches run the same kernels) are one row with their count.
//   the plan          core/plan/compiler.hpp   compiled with every kernel an op (PlanDetail::Kernels)
//   each op's cost    models/cost/cost_model.hpp  what the engines charge it (the framework's floors, a profile)
//   a kernel's terms  models/zoo/kernel.hpp      kernel_cost: FLOPs, bytes, fixed time, waves
//   the step          sim/run.hpp              the job's mean iteration time on the analytical engine
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim::sim {

struct KernelRow {
  std::string name;  // the ops' label without the micro-batch, a token that differs between them as "L*"
  std::string kind;  // the kernel class (kernel_class_name), a collective's kind (collective_name), or send,
                     // optimizer, composite
  Stream stream = Stream::Compute;
  Phase phase = Phase::Forward;
  GemmShape shape{};                // GEMMs' and fused attention's (kernel.hpp); unknown otherwise
  double flops = 0;                 // per call
  double bytes = 0;                 // per call: memory traffic, or S of a collective, or a message's bytes
  int calls = 0;                    // in one iteration of the rank
  double seconds = 0;               // per call, as the engines cost it (models/cost/cost_model.hpp), uncontended
  std::optional<KernelCost> model;  // a compute op the device's figures cost (none with a calibration profile)
  // compute, memory or fixed (KernelCost::bound); launch where the framework's per-kernel floor is longer; profile
  // (a calibration's curve); composite; a collective's algorithm (NCCL's choice as "nccl tree/LL128").
  std::string bound;
  double total() const { return calls * seconds; }
};

struct KernelTable {
  std::string scenario;
  std::string device;
  int rank = 0;
  int stage = -1;               // the rank's pipeline stage (hybrid jobs), or -1
  double step_seconds = 0;      // the rank's job's mean iteration time on the analytical engine
  std::vector<KernelRow> rows;  // in the order of each row's first op in the rank's program
};

// The table of `rank` (-1: the first worker of the first job). Throws InputError when the rank does not exist or
// has no program of its own (a plan of representatives: the message lists the ranks that have one).
KernelTable kernel_table(const Scenario& s, int rank = -1);

}  // namespace dtsim::sim
