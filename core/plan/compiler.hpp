// The plan compiler: from a Scenario to its Plan, each job compiled by its kind (job_kind): data-parallel
// (data_parallel/: AllReduce with gradient buckets, a sharded parameter server, gossip), hybrid (hybrid/), or
// replayed from Chakra traces (chakra/).
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

// What a job is, read once from its keys, and what the compiler does with it: a job replayed from Chakra traces
// (chakra/import.hpp), a gossip data-parallel job (data_parallel/gossip.hpp), a hybrid job (hybrid/compile.hpp),
// an AllReduce or parameter-server data-parallel job (data_parallel/).
enum class JobKind { AllReduce, ParameterServer, Gossip, Hybrid, Chakra };
JobKind job_kind(const JobSpec& job);
// AllReduce and hybrid jobs have representatives; the others compile every rank.
bool has_representatives(JobKind kind);

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

}  // namespace dtsim
