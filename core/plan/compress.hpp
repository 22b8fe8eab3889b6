// Gradient exchange with compression: the ops a worker runs to combine one bucket's (or layer's,
// or shard's) gradient, following the job's compressor (models/compression/).
#pragma once

#include <string>

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim {

// A piece of the gradient exchanged as one: a DDP bucket or a layer.
struct GradientUnit {
  std::string name;  // "bucket 3", "layer fc1"
  double params = 0;
  int ready = -1;  // the op whose end makes its gradient ready
};

// Collectives of the exchange: the job's algorithm, and the one that AllGathers sparse payloads
// (the job's algorithm when it supports AllGather over the group, else ring).
struct ExchangeContext {
  int group = 0;
  int workers = 1;
  const CollectiveAlgorithm* reduce = nullptr;
  const CollectiveAlgorithm* gather = nullptr;
  int seq = 0;  // the next collective's sequence number in the group
};

// Whether the job compresses a tensor of `params` gradients (method set, at least min_size bytes,
// and the compressor finds it worth it).
bool compresses(const JobSpec& job, double params);
Tensor gradient_tensor(const JobSpec& job, double params);

// Appends the unit's exchange on the comm stream (compress, collective(s), decompress; or the plain
// AllReduce); returns the id of its last op.
int add_gradient_exchange(RankProgram& r, const JobSpec& job, const GradientUnit& unit, ExchangeContext& ctx);

// A compute op of the Compression phase on `stream`: the model's `work`, and how a calibration
// profile times it when it measured the method's kernel.
Op codec_op(RankProgram& r, std::string label, Stream stream, std::vector<int> deps, const CodecWork& work,
            const CodecTiming& timing = {});

}  // namespace dtsim
