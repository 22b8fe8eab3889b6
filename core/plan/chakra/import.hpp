// Chakra execution traces -> a Plan (docs/chakra.md): the job of a scenario with workload.chakra.
// Each rank's nodes become its ops in a dependency order (data and control deps both); compute and
// memory nodes are timed by duration or roofline (ChakraTiming), collectives run on the process
// groups their pg_name names (described by pg_ranks.<name> in the metadata, else the ranks that
// name it), and sends and receives match by source, destination, tag and order.
#pragma once

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

// Adds job `job_index` (whose chakra.prefix is set) to `plan`: its ranks, groups and JobPlan. Node
// types and attributes it does not model go to plan.warnings, once each. Throws InputError naming
// the file, rank and node for a trace it cannot replay: a dependency cycle, a dependency on a node
// the trace does not hold, a receive without its send (or a send without its receive), a group
// whose members issue different numbers of collectives, more ranks than the job's devices.
void compile_chakra(const Scenario& s, const JobSpec& job, int job_index, Plan& plan);

}  // namespace dtsim
