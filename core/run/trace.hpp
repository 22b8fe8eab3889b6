// trace.json in the Chrome Trace Event format (opens in Perfetto and chrome://tracing):
// one process per node, one thread per rank and stream, args with bytes, FLOPs and iteration.
#pragma once

#include <string>
#include <vector>

#include "core/base/atomic_file.hpp"
#include "core/plan/plan.hpp"
#include "core/run/observer.hpp"

namespace dtsim {

// The trace's text (times in microseconds), handed to `sink` in pieces of about 1 MB, so that a run
// never holds the whole text: trace.json goes to disk as it is made (write_file_atomic's streaming form).
void write_trace_json(const ChunkSink& sink, const Plan& plan, const std::vector<OpRecord>& records, int cluster_nodes);
// The whole trace as one string (for callers that parse it back).
std::string trace_json(const Plan& plan, const std::vector<OpRecord>& records, int cluster_nodes);

}  // namespace dtsim
