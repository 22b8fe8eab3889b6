// Evaluating a calibration profile's fitted curves.
#include "core/calibration/calibration.hpp"

#include <algorithm>

#include "core/base/error.hpp"
#include "core/base/median.hpp"
#include "models/compression/compressor.hpp"

namespace dtsim {

const Segment& PiecewiseLinear::at(double x) const {
  if (segments.empty()) throw RuntimeError("an empty piecewise-linear fit was evaluated");
  const Segment* found = &segments.front();
  for (const Segment& s : segments) {
    if (x >= s.min_x) found = &s;
  }
  return *found;
}

namespace {
// The curve `name` of `curves`, or with in_cache its _in_cache version where there is one; null without either.
const FittedCurve* find_curve(const std::map<std::string, FittedCurve>& curves, const std::string& name,
                              bool in_cache) {
  if (in_cache) {
    const auto cached = curves.find(in_cache_curve(name));
    if (cached != curves.end()) return &cached->second;
  }
  const auto it = curves.find(name);
  return it == curves.end() ? nullptr : &it->second;
}
}  // namespace

const FittedCurve* CalibrationProfile::link(const std::string& link_class, bool in_cache) const {
  return find_curve(links, link_class, in_cache);
}

bool CalibrationProfile::has_in_cache_curves() const {
  if (!(machine.llc_bytes > 0)) return false;
  for (const auto* curves : {&links, &memory}) {
    for (const auto& [name, curve] : *curves) {
      if (name.size() > kInCacheSuffix.size() && name.ends_with(kInCacheSuffix)) return true;
    }
  }
  return false;
}

const FittedCurve& CalibrationProfile::compute_curve(Dtype d) const {
  const auto it = compute.find(std::string(dtype_name(d)));
  if (it != compute.end()) return it->second;
  const auto fp32 = compute.find("fp32");
  if (fp32 != compute.end()) return fp32->second;
  if (compute.empty()) throw RuntimeError("a calibration profile without a compute curve was evaluated");
  return compute.begin()->second;  // the loader requires one
}

double CalibrationProfile::compute_time(Dtype d, double flops, double mem_bytes, bool in_cache) const {
  const double busy = flops > 0 ? compute_curve(d).fit.time(flops) : 0.0;
  return std::max(busy, memory_roofline ? memory_time(mem_bytes, in_cache) : 0.0);
}

double CalibrationProfile::attention_time(Dtype d, double flops, double mem_bytes, bool in_cache) const {
  const auto it = attention.find(std::string(dtype_name(d)));
  if (it == attention.end()) return compute_time(d, flops, mem_bytes, in_cache);
  const double busy = flops > 0 ? it->second.fit.time(flops) : 0.0;
  return std::max(busy, memory_roofline ? memory_time(mem_bytes, in_cache) : 0.0);
}

double CalibrationProfile::memory_time(double mem_bytes, bool in_cache) const {
  if (!(mem_bytes > 0)) return 0.0;
  if (const FittedCurve* c = find_curve(memory, "sgd_step", in_cache)) return c->fit.time(mem_bytes);
  return memory_bandwidth > 0 ? mem_bytes / memory_bandwidth : 0.0;
}

namespace {
// A memory curve of the profile at `bytes`; 0 when it lacks the curve.
double optional_curve(const std::map<std::string, FittedCurve>& memory, const char* name, double bytes) {
  const FittedCurve* c = find_curve(memory, name, false);
  return c && bytes > 0 ? c->fit.time(bytes) : 0.0;
}
}  // namespace

double CalibrationProfile::collective_buffer_time(double bytes) const {
  return optional_curve(memory, kCollectiveBuffer, bytes);
}

double CalibrationProfile::push_buffer_time(double bytes) const { return optional_curve(memory, kPushBuffer, bytes); }

std::optional<double> CalibrationProfile::codec_time(std::string_view kernel, CodecStage stage, double kernel_bytes,
                                                     double decode_bytes, double feedback_bytes, bool in_cache) const {
  if (kernel.empty()) return std::nullopt;
  const auto it = compression.find(std::string(kernel));
  if (it == compression.end()) return std::nullopt;
  if (stage == CodecStage::Decompress) {
    const auto decode = compression.find(decompress_kernel(kernel));
    if (decode != compression.end()) return decode->second.fit.time(decode_bytes);
  }
  return it->second.fit.time(kernel_bytes) + memory_time(feedback_bytes, in_cache);
}

double CalibrationProfile::streaming_op_time(Dtype d, double flops, double mem_bytes, bool in_cache) const {
  return std::max(flops > 0 ? compute_curve(d).fit.time(flops) : 0.0, memory_time(mem_bytes, in_cache));
}

std::vector<std::string_view> compression_kernels() {
  std::vector<std::string_view> kernels;
  for (const MethodTraits& m : compression_methods()) {
    if (!m.calibration_kernel.empty()) kernels.push_back(m.calibration_kernel);
  }
  return kernels;
}

namespace {

// alone / together, in (0, 1]: a faster run beside the other (noise) keeps the full rate.
double kept(const std::vector<double>& alone, const std::vector<double>& together) {
  const double a = median(alone), t = median(together);
  return a > 0 && t > 0 ? std::clamp(a / t, 1e-3, 1.0) : 1.0;
}

}  // namespace

ContentionFit fit_contention(const ContentionSample& s) {
  return ContentionFit{kept(s.gemm_alone, s.gemm_under_comm), kept(s.collective_alone, s.collective_under_gemm)};
}

ContentionFit CalibrationProfile::contention_rates() const {
  return contention ? fit_contention(*contention) : ContentionFit{};
}

std::string_view fit_verdict_name(FitVerdict v) {
  switch (v) {
    case FitVerdict::Ok: return "ok";
    case FitVerdict::Marked: return "marked";
    case FitVerdict::Refused: return "refused";
  }
  return "?";
}

std::optional<FitVerdict> parse_fit_verdict(std::string_view name) {
  for (FitVerdict v : {FitVerdict::Ok, FitVerdict::Marked, FitVerdict::Refused}) {
    if (fit_verdict_name(v) == name) return v;
  }
  return std::nullopt;
}

double both_none(double g, double c) { return std::max(g, c); }

double both_serial(double g, double c) { return g + c; }

double both_compute_slowed(double g, double c, double f) { return g >= f * c ? g + c * (1 - f) : c; }

double both_both_slowed(double g, double c, double f, double keep_comm) {
  const double compute_ends = g / f, comm_ends = c / keep_comm;
  if (compute_ends <= comm_ends) return compute_ends + (c - keep_comm * compute_ends);
  return comm_ends + (g - f * comm_ends);
}

BothAtOnce both_at_once(const ContentionSample& s) {
  const double g = median(s.gemm_alone), c = median(s.collective_alone);
  const ContentionFit f = fit_contention(s);
  return BothAtOnce{median(s.both), both_none(g, c), both_serial(g, c), both_compute_slowed(g, c, f.compute_kept),
                    both_both_slowed(g, c, f.compute_kept, f.comm_kept)};
}

}  // namespace dtsim
