// trace.json in the Chrome Trace Event format (opens in Perfetto and chrome://tracing):
// one process per node, one thread per rank and stream, args with bytes, FLOPs and iteration.
#pragma once

#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/run/observer.hpp"

namespace dtsim {

// The whole trace as text (times in microseconds).
std::string trace_json(const Plan& plan, const std::vector<OpRecord>& records, int cluster_nodes);

}  // namespace dtsim
