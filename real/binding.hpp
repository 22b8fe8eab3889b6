// Which real buffer each op of a rank works on. A job's model is one flat vector of floats (one
// per 4 bytes of gradients on the wire); AllReduce buckets, parameter-server shards, pushes and
// pulls are ranges of it, so the same element carries the same value whatever the strategy.
// A hybrid-parallel rank's model is its own shard of the job's (its stage, tensor slice and
// experts): its data-parallel gradient reductions are ranges of it (binding_hybrid.cpp).
#pragma once

#include <array>
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
  Message,    // a pipeline stage's activation or activation gradient, one buffer per message op
};

// What a collective's buffer starts with and must end with (values.hpp): the model's pattern of
// integer contributions, or a tensor-parallel GEMM's partial products (their sum the unsplit product).
enum class Values { Pattern, TensorGemm };

struct Binding {
  BufferKind buffer = BufferKind::None;
  int inbox = -1;           // BufferKind::Inbox: which worker (index in the job)
  std::int64_t offset = 0;  // first element in the buffer
  std::int64_t elements = 0;
  std::int64_t model_offset = 0;  // index in the job's model of the first element
  int unit = -1;                  // a compressed gradient unit's op: the unit (index in JobPlan::unit_bytes)
  int step = -1;                  // and its step (0: compress, ..., last: decompress)
  Values values = Values::Pattern;
  int lane = 0;      // Scratch: the op's stream, whose own scratch it uses (streams run at once)
  int message = -1;  // Message: which of the rank's message buffers
};

struct RankBinding {
  int worker_index = -1;                       // position among the job's workers; -1 for a server
  int workers = 0;                             // workers in the job
  std::int64_t model_elements = 0;             // the job's whole model
  std::int64_t local_elements = 0;             // Params and Grads on this rank (a server: its shard)
  std::int64_t local_offset = 0;               // index in the model of this rank's first local element
  std::int64_t scratch_elements = 0;           // the most any lane needs
  std::array<std::int64_t, 3> lane_scratch{};  // per stream (Stream's values)
  std::vector<std::int64_t> message_elements;  // per message buffer
  // Whether the ranks of a data-parallel group must end with equal parameters: not under ZeRO, where
  // each rank steps its own shard (the all-gathers' element checks cover the gathered parameters).
  bool replicas_agree = true;
  std::vector<Binding> ops;  // one per op of the rank's program
};

// Floats standing for `bytes` on the wire (4 bytes each, rounded to nearest).
std::int64_t elements_of(double bytes);

RankBinding bind_rank(const Plan& plan, int rank);

// A hybrid-parallel rank (RankProgram::stage >= 0), which bind_rank hands over to.
RankBinding bind_hybrid(const Plan& plan, int rank);

// The ranks whose parameters must end equal to this rank's: -1 for every worker of the job (data
// parallelism); for a hybrid rank, the index of its data group in Plan::groups (-2 - rank with none).
int replica_group(const Plan& plan, int rank);

// A Scratch binding of `bytes` on the stream's lane, growing the lane's scratch to hold it.
Binding scratch_binding(RankBinding& rb, double bytes, Stream lane);

}  // namespace dtsim::real
