// The plan compiler: from a Scenario to the Plan of data-parallel training (BSP), with
// AllReduce and gradient bucketing, or a sharded parameter server.
#pragma once

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

Plan compile_plan(const Scenario& s);

// Representatives: every rank is placed, but only one rank of each class of ranks that share a
// timeline gets its program (the others are left empty), for engines that exploit the symmetry: an
// AllReduce job's first worker; a hybrid job's first rank of each pipeline stage (tensor, context,
// expert and data coordinates 0). Collectives then wait for their groups' represented members only.
enum class PlanScope { AllRanks, Representatives };
Plan compile_plan(const Scenario& s, PlanScope scope);
// Whether every job of `s` has representatives (AllReduce and hybrid jobs but gossip; parameter
// servers have none): PlanScope::Representatives compiles it.
bool has_representatives(const Scenario& s);

// How finely a hybrid job's work is split into ops (other jobs ignore it). Kernels: every kernel and
// collective is an op (what the real backends run, and what a trace shows). Blocks (with
// PlanScope::Representatives only, for the analytical engine's symmetric runs): each block's
// forward, and its recompute and backward, is one Composite, split where another stream waits on it
// (ZeRO-3 prefetches after a block's first kernel): the same timeline and metrics from a twelfth of
// the ops. NodeBlocks (any scope, for symmetric jobs): the same, but a collective whose group spans
// nodes stays an op of its own, so that an engine that routes flows (SimGrid) still sees all the
// traffic that crosses NICs; only collectives inside a node are timed by their closed form.
enum class PlanDetail { Kernels, Blocks, NodeBlocks };
Plan compile_plan(const Scenario& s, PlanScope scope, PlanDetail detail);

// How many plans this process has compiled (every compile_plan call counts once): the tests hold a run
// (sim/run.hpp) and `dtsim check` to the one compilation they need.
long plans_compiled();

// Gradient buckets in backward order, as PyTorch DDP forms them: layers are taken from the last
// to the first, and a bucket closes once it holds at least bucket_bytes. Each bucket lists its
// layers; the last one listed is the one whose backward finishes it.
std::vector<std::vector<int>> gradient_buckets(const Workload& w, double bytes_per_param, double bucket_bytes);

}  // namespace dtsim
