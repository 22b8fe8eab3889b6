// Binding ops to model ranges: AllReduce bucket b covers the model from its end backwards (the
// last layers' gradients are bucketed first); parameter-server shard j covers the j-th range in
// shard order; pushes, pulls and the servers' receives and sends follow their shard.
#include "real/binding.hpp"

#include <algorithm>
#include <cmath>
#include <variant>

namespace dtsim::real {
namespace {

// Ranges from cumulative byte counts, so rounding never makes the pieces overlap or leave gaps.
struct Ranges {
  std::vector<std::int64_t> begin;  // size n + 1
  std::int64_t total() const { return begin.back(); }
};

Ranges ranges_of(const std::vector<double>& bytes) {
  Ranges r;
  double cum = 0;
  r.begin.push_back(0);
  for (double b : bytes) {
    cum += b;
    r.begin.push_back(elements_of(cum));
  }
  return r;
}

int index_of(const std::vector<int>& v, int x) {
  const auto it = std::find(v.begin(), v.end(), x);
  return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}

// Bytes of each AllReduce bucket of a worker, in seq order.
std::vector<double> bucket_bytes(const RankProgram& r) {
  std::vector<double> out;
  for (const Op& op : r.ops) {
    const auto* c = std::get_if<CollectiveOp>(&op.body);
    if (c && c->kind == CollectiveKind::AllReduce) out.push_back(c->bytes);
  }
  return out;
}

// Bytes of each shard, in shard order: what one of its server's replies carries (dense, where a
// push may be compressed; under ASP and SSP a shard has one server rank per worker, the first
// one stands for the shard).
std::vector<double> shard_bytes(const Plan& plan, const JobPlan& job) {
  std::vector<double> out;
  for (int s : job.servers) {
    if (plan.ranks[s].shard != static_cast<int>(out.size())) continue;
    double bytes = 0;
    for (const Op& op : plan.ranks[s].ops) {
      if (const auto* send = std::get_if<SendOp>(&op.body)) bytes = send->bytes;
    }
    out.push_back(bytes);
  }
  return out;
}

// The shard a rank serves, or -1 when it is not one of the job's servers.
int shard_of(const Plan& plan, const JobPlan& job, int rank) {
  return index_of(job.servers, rank) >= 0 ? plan.ranks[rank].shard : -1;
}

// Compressed parameter-server pushes: a worker's compress op (the push's dependency) and its push
// become steps 0 and 1 of unit `shard`; a server's receives from workers and its decompress op,
// steps 1 and 2 of its own shard.
void bind_compressed_pushes(const Plan& plan, const RankProgram& prog, int shard, RankBinding& rb) {
  const JobPlan& job = plan.jobs[prog.job];
  const bool server_decompresses =
      std::any_of(prog.ops.begin(), prog.ops.end(), [](const Op& op) { return op.phase == Phase::Compression; });
  for (const Op& op : prog.ops) {
    Binding& b = rb.ops[op.id];
    if (shard < 0) {
      const auto* send = std::get_if<SendOp>(&op.body);
      if (!send || op.deps.size() != 1 || prog.ops[op.deps[0]].phase != Phase::Compression) continue;
      b.unit = shard_of(plan, job, send->peer);
      b.step = 1;
      Binding& compress = rb.ops[op.deps[0]];
      compress = Binding{BufferKind::Grads, -1, b.offset, b.elements, b.model_offset, b.unit, 0};
    } else if (server_decompresses) {
      if (std::holds_alternative<RecvOp>(op.body) && b.buffer == BufferKind::Inbox) {
        b.unit = shard;
        b.step = 1;
      } else if (op.phase == Phase::Compression) {
        b = Binding{BufferKind::None, -1, 0, rb.local_elements, rb.local_offset, shard, 2};
      }
    }
  }
}

}  // namespace

std::int64_t elements_of(double bytes) { return std::max<std::int64_t>(0, std::llround(bytes / 4.0)); }

Binding scratch_binding(RankBinding& rb, double bytes, Stream lane) {
  const std::int64_t n = elements_of(bytes);
  auto& held = rb.lane_scratch[static_cast<size_t>(lane)];
  held = std::max(held, n);
  rb.scratch_elements = std::max(rb.scratch_elements, n);
  Binding b{BufferKind::Scratch, -1, 0, n, 0};
  b.lane = static_cast<int>(lane);
  return b;
}

RankBinding bind_rank(const Plan& plan, int rank) {
  const RankProgram& prog = plan.ranks[rank];
  if (prog.stage >= 0) return bind_hybrid(plan, rank);
  const JobPlan& job = plan.jobs[prog.job];
  RankBinding rb;
  rb.workers = static_cast<int>(job.workers.size());
  rb.worker_index = index_of(job.workers, rank);
  rb.ops.resize(prog.ops.size());
  const bool ps = !job.servers.empty();
  const Ranges shards = ranges_of(ps ? shard_bytes(plan, job) : std::vector<double>{});
  std::vector<double> buckets = ps                        ? std::vector<double>{}
                                : !job.unit_bytes.empty() ? job.unit_bytes
                                                          : bucket_bytes(plan.ranks[job.workers.front()]);
  const Ranges cum = ranges_of(buckets);
  rb.model_elements = ps ? shards.total() : cum.total();
  const int shard = shard_of(plan, job, rank);
  if (shard >= 0) {
    rb.local_offset = shards.begin[shard];
    rb.local_elements = shards.begin[shard + 1] - shards.begin[shard];
  } else {
    rb.local_elements = rb.model_elements;
  }
  int bucket = 0;
  int unit_ops = 0;  // ops left of the compressed unit being bound
  int step = 0;
  auto unit_range = [&](int u) {
    const std::int64_t end = rb.model_elements - cum.begin[u];
    const std::int64_t begin = rb.model_elements - cum.begin[u + 1];
    return Binding{BufferKind::Grads, -1, begin, end - begin, begin};
  };
  for (const Op& op : prog.ops) {
    Binding& b = rb.ops[op.id];
    const bool exchange =
        !ps && op.stream == Stream::Comm && (op.phase == Phase::Compression || op.phase == Phase::Communication);
    if (exchange && unit_ops == 0 && op.phase == Phase::Compression && bucket < static_cast<int>(buckets.size())) {
      // A compressed unit: compress, collective(s), decompress (PowerSGD: two of each between).
      unit_ops = method_traits(job.compression.method).exchange == Exchange::LowRank ? 5 : 3;
      step = 0;
    }
    if (exchange && unit_ops > 0) {
      const auto* c = std::get_if<CollectiveOp>(&op.body);
      b = c ? scratch_binding(rb, c->bytes, op.stream) : unit_range(bucket);
      b.unit = bucket;
      b.step = step++;
      if (--unit_ops == 0) ++bucket;
      continue;
    }
    if (const auto* c = std::get_if<CollectiveOp>(&op.body)) {
      if (c->kind == CollectiveKind::AllReduce && !ps && bucket < static_cast<int>(buckets.size())) {
        const std::int64_t end = rb.model_elements - cum.begin[bucket];
        const std::int64_t begin = rb.model_elements - cum.begin[bucket + 1];
        b = Binding{BufferKind::Grads, -1, begin, end - begin, begin};
        ++bucket;
      } else {
        b = scratch_binding(rb, c->bytes, op.stream);
      }
    } else if (const auto* s = std::get_if<SendOp>(&op.body)) {
      const int to_shard = shard_of(plan, job, s->peer);
      if (shard < 0 && to_shard >= 0) {  // a worker's push
        const std::int64_t begin = shards.begin[to_shard];
        b = Binding{BufferKind::Grads, -1, begin, shards.begin[to_shard + 1] - begin, begin};
      } else if (shard >= 0 && index_of(job.workers, s->peer) >= 0) {  // a server's reply
        b = Binding{BufferKind::Params, -1, 0, rb.local_elements, rb.local_offset};
      } else {
        b = scratch_binding(rb, s->bytes, op.stream);
      }
    } else if (const auto* r = std::get_if<RecvOp>(&op.body)) {
      const int from_shard = shard_of(plan, job, r->peer);
      const int from_worker = index_of(job.workers, r->peer);
      if (shard < 0 && from_shard >= 0) {  // a worker's pull
        const std::int64_t begin = shards.begin[from_shard];
        b = Binding{BufferKind::Params, -1, begin, shards.begin[from_shard + 1] - begin, begin};
      } else if (shard >= 0 && from_worker >= 0) {
        b = Binding{BufferKind::Inbox, from_worker, 0, rb.local_elements, rb.local_offset};
      } else {
        b = scratch_binding(rb, r->bytes, op.stream);
      }
    } else if (std::holds_alternative<UpdateOp>(op.body)) {
      b = Binding{BufferKind::Params, -1, 0, rb.local_elements, rb.local_offset};
    } else if (shard >= 0 && op.phase == Phase::Aggregate) {
      b = Binding{BufferKind::Aggregate, -1, 0, rb.local_elements, rb.local_offset};
    }
  }
  if (ps) bind_compressed_pushes(plan, prog, shard, rb);
  return rb;
}

}  // namespace dtsim::real
