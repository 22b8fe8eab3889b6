// A Plan as Chakra execution traces, one per rank (docs/chakra.md): compute and optimizer ops as
// COMP_NODEs (num_ops, tensor_size, duration), collectives as COMM_COLL_NODEs on named process groups,
// sends and receives as COMM_SEND/COMM_RECV_NODEs, dependencies as data deps and each FIFO stream's
// order as control deps. dtsim's own attributes (attrs.hpp) let import_chakra rebuild the Plan.
#pragma once

#include <functional>

#include "core/chakra/et_trace.hpp"
#include "core/plan/plan.hpp"

namespace dtsim {

// What an op lasts alone, in seconds (the CLI passes the cost model's), for duration_micros.
using OpDuration = std::function<double(const RankProgram&, const Op&)>;

// Rank `rank`'s trace. Throws InputError for what Chakra has no node for (a staleness gate, a backup
// workers' quorum, gossip) and for plans of several jobs.
EtTrace export_chakra_rank(const Plan& plan, int rank, const OpDuration& duration);

}  // namespace dtsim
