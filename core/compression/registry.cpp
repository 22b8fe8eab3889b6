// The table of compressors by name, and what they share: the default exchange, error feedback
// and sparse decoding.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/base/error.hpp"
#include "core/base/suggest.hpp"
#include "core/compression/detail.hpp"

namespace dtsim {
namespace {

const std::array<const Compressor*, 9>& table() {
  static const std::array<const Compressor*, 9> compressors{
      &compression::none_compressor(),    &compression::fp16_compressor(), &compression::bf16_compressor(),
      &compression::int8_compressor(),    &compression::qsgd_compressor(), &compression::topk_compressor(),
      &compression::randomk_compressor(), &compression::sign_compressor(), &compression::powersgd_compressor(),
  };
  return compressors;
}

}  // namespace

std::vector<std::string_view> compressor_names() {
  std::vector<std::string_view> names;
  for (const Compressor* c : table()) names.push_back(c->name());
  return names;
}

const Compressor& find_compressor(std::string_view name) {
  for (const Compressor* c : table()) {
    if (c->name() == name) return *c;
  }
  const std::vector<std::string_view> names = compressor_names();
  throw InputError(fmt::format("unknown compression method '{}' (valid: {}){}", name, fmt::join(names, ", "),
                               did_you_mean(name, std::vector<std::string>(names.begin(), names.end()))));
}

CodecWork error_feedback_work(const Tensor& t, const CompressionSpec& spec) {
  if (!spec.error_feedback) return {};
  return CodecWork{2 * t.n, 6 * t.n * t.elem_bytes};
}

CodecWork scaled(CodecWork w, double scale) { return CodecWork{w.flops * scale, w.mem_bytes * scale}; }

std::vector<CodecStep> Compressor::steps(const Tensor& t, const CompressionSpec& spec, int workers) const {
  const double payload = payload_bytes(t, spec);
  const bool gather = exchange() == Exchange::AllGather;
  std::vector<CodecStep> out;
  out.push_back(CodecStep{fmt::format("compress {}", name()), false, CollectiveKind::AllReduce, 0,
                          scaled(compress(t, spec), spec.cost_scale), CodecStage::Compress});
  out.push_back(CodecStep{gather ? "allgather" : "allreduce",
                          true,
                          gather ? CollectiveKind::AllGather : CollectiveKind::AllReduce,
                          gather ? payload * workers : payload,
                          {}});
  const int contributions = gather ? workers : 1;
  out.push_back(CodecStep{fmt::format("decompress {}", name()), false, CollectiveKind::AllReduce, 0,
                          scaled(decompress(t, spec, contributions), spec.cost_scale), CodecStage::Decompress,
                          contributions});
  return out;
}

CodecTiming codec_timing(const Compressor& c, const Tensor& t, const CompressionSpec& spec, CodecStage stage,
                         int contributions) {
  CompressionSpec plain = spec;
  plain.error_feedback = false;
  const double kernel_traffic = c.compress(t, plain).mem_bytes;
  const double measured = 4 * t.n;
  switch (stage) {
    case CodecStage::Compress: return CodecTiming{stage, measured, 0, c.compress(t, spec).mem_bytes - kernel_traffic};
    case CodecStage::Decompress: {
      const double traffic = c.decompress(t, spec, contributions).mem_bytes;
      const double ratio = kernel_traffic > 0 ? traffic / kernel_traffic : 1;
      const double one = c.decompress(t, spec, 1).mem_bytes;
      return CodecTiming{stage, measured * ratio, one > 0 ? measured * traffic / one : measured, 0};
    }
    case CodecStage::None: break;
  }
  return {};
}

namespace compression {

double sparse_k(const Tensor& t, const CompressionSpec& spec) {
  return std::clamp(std::ceil(spec.ratio * t.n), 1.0, std::max(1.0, t.n));
}

CodecWork sparse_decode(const Tensor& t, double k, int contributions) {
  const double pairs = k * contributions;
  return CodecWork{pairs, t.n * t.elem_bytes + pairs * (8 + 2 * t.elem_bytes)};
}

}  // namespace compression
}  // namespace dtsim
