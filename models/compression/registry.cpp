// The compressor of each method, and what they share: the default exchange, error feedback and
// sparse decoding.
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "models/compression/detail.hpp"

namespace dtsim {

const Compressor& find_compressor(CompressionMethod m) {
  switch (m) {
    case CompressionMethod::None: return compression::none_compressor();
    case CompressionMethod::Fp16: return compression::fp16_compressor();
    case CompressionMethod::Bf16: return compression::bf16_compressor();
    case CompressionMethod::Int8: return compression::int8_compressor();
    case CompressionMethod::Qsgd: return compression::qsgd_compressor();
    case CompressionMethod::TopK: return compression::topk_compressor();
    case CompressionMethod::RandomK: return compression::randomk_compressor();
    case CompressionMethod::Sign: return compression::sign_compressor();
    case CompressionMethod::PowerSgd: return compression::powersgd_compressor();
  }
  throw RuntimeError(fmt::format("no compressor for method {}", static_cast<int>(m)));
}

const Compressor& find_compressor(std::string_view name) { return find_compressor(parse_compression_method(name)); }

std::vector<std::string_view> compressor_names() {
  std::vector<std::string_view> names;
  for (const MethodTraits& t : compression_methods()) names.push_back(t.name);
  return names;
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
