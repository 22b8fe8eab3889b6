// Compressed gradient exchange. The compress and decompress ops run on the comm stream, in order
// with the collectives: PyTorch DDP runs a comm hook's future chain (compress, collective,
// decompress) off the backward pass, so the next layers' backward is not held up by it; the
// work still shares the device with the backward pass (both engines run one compute op at a time
// per device).
#include "core/plan/compress.hpp"

#include <fmt/format.h>

#include "core/plan/worker.hpp"

namespace dtsim {

Tensor gradient_tensor(const JobSpec& job, double params) { return Tensor{params, dtype_bytes(job.model.grad_dtype)}; }

bool compresses(const JobSpec& job, double params) {
  const CompressionSpec& spec = job.compression;
  if (spec.method == CompressionMethod::None) return false;
  const Tensor t = gradient_tensor(job, params);
  if (t.n * t.elem_bytes < spec.min_size) return false;
  return find_compressor(spec.method).compresses(t, spec);
}

Op codec_op(RankProgram& r, std::string label, Stream stream, std::vector<int> deps, const CodecWork& work,
            const CodecTiming& timing) {
  return new_op(r, std::move(label), stream, Phase::Compression, std::move(deps),
                ComputeOp{work.flops, work.mem_bytes, Dtype::Fp32, timing.stage, timing.kernel_bytes,
                          timing.decode_bytes, timing.feedback_bytes});
}

int add_gradient_exchange(RankProgram& r, const JobSpec& job, const GradientUnit& unit, ExchangeContext& ctx) {
  const Tensor t = gradient_tensor(job, unit.params);
  if (!compresses(job, unit.params)) {
    Op op = comm_op(r, fmt::format("allreduce {}", unit.name), Stream::Comm, {unit.ready},
                    CollectiveOp{CollectiveKind::AllReduce, t.n * t.elem_bytes, ctx.group, ctx.reduce, ctx.seq++});
    r.ops.push_back(std::move(op));
    return r.ops.back().id;
  }
  int prev = unit.ready;
  const Compressor& c = find_compressor(job.compression.method);
  for (const CodecStep& step : c.steps(t, job.compression, ctx.workers)) {
    const std::string label = fmt::format("{} {}", step.label, unit.name);
    if (step.collective) {
      const CollectiveAlgorithm* algo = step.kind == CollectiveKind::AllGather ? ctx.gather : ctx.reduce;
      r.ops.push_back(
          comm_op(r, label, Stream::Comm, {prev}, CollectiveOp{step.kind, step.bytes, ctx.group, algo, ctx.seq++}));
    } else {
      r.ops.push_back(codec_op(r, label, Stream::Comm, {prev}, step.work,
                               codec_timing(c, t, job.compression, step.stage, step.contributions)));
    }
    prev = r.ops.back().id;
  }
  return prev;
}

}  // namespace dtsim
