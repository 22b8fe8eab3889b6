// Which real buffer each op of a rank works on. A job's model is one flat vector of floats (one
// per 4 bytes of gradients on the wire); AllReduce buckets, parameter-server shards, pushes and
// pulls are ranges of it, so the same element carries the same value whatever the strategy.
#pragma once

#include <cstdint>
#include <vector>

#include "core/plan/plan.hpp"

namespace dtsim::real {

enum class BufferKind {
  None,       // no data (compute)
  Grads,      // the rank's gradients (a worker's full vector; a server's aggregated shard)
  Params,     // the rank's parameters (a worker's full model; a server's shard)
  Inbox,      // a server's copy of one worker's pushed gradients
  Scratch,    // bytes with no meaning in the model (ops the plan compiler may add later)
  Aggregate,  // a server's aggregation: Grads = sum of the Inboxes
};

struct Binding {
  BufferKind buffer = BufferKind::None;
  int inbox = -1;           // BufferKind::Inbox: which worker (index in the job)
  std::int64_t offset = 0;  // first element in the buffer
  std::int64_t elements = 0;
  std::int64_t model_offset = 0;  // index in the job's model of the first element
  int unit = -1;                  // a compressed gradient unit's op: the unit (index in JobPlan::unit_bytes)
  int step = -1;                  // and its step (0: compress, ..., last: decompress)
};

struct RankBinding {
  int worker_index = -1;            // position among the job's workers; -1 for a server
  int workers = 0;                  // workers in the job
  std::int64_t model_elements = 0;  // the job's whole model
  std::int64_t local_elements = 0;  // Params and Grads on this rank (a server: its shard)
  std::int64_t local_offset = 0;    // index in the model of this rank's first local element
  std::int64_t scratch_elements = 0;
  std::vector<Binding> ops;  // one per op of the rank's program
};

// Floats standing for `bytes` on the wire (4 bytes each, rounded to nearest).
std::int64_t elements_of(double bytes);

RankBinding bind_rank(const Plan& plan, int rank);

}  // namespace dtsim::real
