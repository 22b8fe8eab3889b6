// Compressed gradient exchange on the CPU backend: each compressed unit's compress, PowerSGD's
// orthogonalisation and the decompress run the Codec on the unit's real gradients (their time is
// the op's time), and after the decompress the result is checked against a reference summed
// with MPI_Allreduce (outside the timed interval): a lossless codec's output (fp16, bf16 of the
// small-integer gradients; top-k and random-k at ratio 1) is the contributions' exact sum, read
// off the SumTable, independently of the codec; the others' is what the codec expects
// (Codec::expected: the sum of every worker's sparse vector, exactly; sign's vote times the summed
// scales; PowerSGD's P P^T of the summed M).
#include <cmath>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "real/cpu/cpu_executor.hpp"
#include "real/mpi_world.hpp"

namespace dtsim::real {

void CpuExecutor::setup_codecs(const Plan& plan) {
  const JobPlan& job = plan.jobs[program_->job];
  const bool ps = !job.servers.empty();
  for (const Op& op : program_->ops) {
    const Binding& b = binding_.ops[op.id];
    if (b.unit < 0) continue;
    if (program_->role == Role::Server) {  // decoders for the workers whose pushes arrive here
      if (b.step != 1) continue;
      auto& decoder = inbox_codecs_[b.inbox];
      if (!decoder) decoder = make_codec(job.compression, binding_.local_elements, 1, 0, 1);
      lossy_pushes_ = lossy_pushes_ || !decoder->lossless();
      continue;
    }
    if (b.step != 0) continue;
    // A pushing worker encodes alone (its own random draws); an AllReduce worker is one of many.
    const std::uint64_t seed = 0x5eedull * static_cast<std::uint64_t>(b.unit + 1) + program_->job +
                               (ps ? 7919ull * static_cast<std::uint64_t>(binding_.worker_index) : 0);
    codecs_[b.unit].codec =
        make_codec(job.compression, b.elements, ps ? 1 : binding_.workers, ps ? 0 : binding_.worker_index, seed);
  }
}

void CpuExecutor::fill_unit(int k, const Op& op) {
  const Binding& b = binding_.ops[op.id];
  std::span<float> g = buffer(b);
  fill_contributions(g, b.model_offset, binding_.worker_index, k);
}

void CpuExecutor::run_codec(const Op& op, int k) {
  const Binding& b = binding_.ops[op.id];
  if (program_->role == Role::Server) {  // decompress every push received into its inbox
    for (auto& [w, decoder] : inbox_codecs_) decoder->decode(inbox_.at(static_cast<size_t>(w)));
    return;
  }
  if (!plan_->jobs[program_->job].servers.empty()) {  // a push: encode, keep what was not sent
    Codec& codec = *codecs_.at(b.unit).codec;
    codec.compress(buffer(b), k);
    codec.keep_residual();
    return;
  }
  Codec& codec = *codecs_.at(b.unit).codec;
  const int last = codec.exchange() == Exchange::LowRank ? 4 : 2;
  if (b.step == 0) {
    codec.compress(buffer(b), k);
  } else if (b.step == last) {
    codec.decompress(buffer(b));
  } else {
    codec.between();
  }
}

void CpuExecutor::check_codec(int k, const Op& op) {
  const Binding& b = binding_.ops[op.id];
  if (program_->role == Role::Server) return;  // pushes are checked by the server's aggregate
  UnitCodec& unit = codecs_.at(b.unit);
  Codec& codec = *unit.codec;
  if (b.step != (codec.exchange() == Exchange::LowRank ? 4 : 2)) return;
  const std::span<float> out = buffer(b);
  const auto n = static_cast<std::int64_t>(out.size());
  const CompressionMethod method = plan_->jobs[program_->job].compression.method;
  CheckResult r;
  auto compare = [&](std::int64_t e, float want, float tolerance) {
    const float have = out[static_cast<size_t>(e)];
    ++r.checked;
    if (!(std::fabs(have - want) <= tolerance)) ++r.mismatched;
    r.checksum += have;
    r.expected += want;
  };
  if (codec.lossless()) {  // the workers' contributions summed, independently of the codec
    const SumTable sums(binding_.workers, k);
    for (std::int64_t e = 0; e < n; ++e) compare(e, sums.at(b.model_offset + e), 0.0f);
  } else {
    const Codec::Expected want = codec.expected([&](std::span<float> v) {
      check_mpi(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_FLOAT, MPI_SUM, unit.comm),
                "MPI_Allreduce");
    });
    for (std::int64_t e = 0; e < n; ++e) compare(e, want.values[static_cast<size_t>(e)], want.tolerance);
  }
  add_check(op, fmt::format("compressed {}", method_name(method)), std::string(exchange_label(codec.exchange())), n, r);
}

}  // namespace dtsim::real
