// Number formatting for the viewer.
#include "gui/model/format.hpp"

#include <cmath>

#include <fmt/format.h>

namespace dtsim::gui {
namespace {

std::string scaled(double v, const char* unit, double base) {
  static constexpr const char* kPrefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  int i = 0;
  while (std::fabs(v) >= base && i < 6) {
    v /= base;
    ++i;
  }
  return i == 0 ? fmt::format("{:.0f} {}", v, unit) : fmt::format("{:.3g} {}{}", v, kPrefixes[i], unit);
}

}  // namespace

std::string format_duration_us(double us) {
  const double a = std::fabs(us);
  if (a >= 1e6) return fmt::format("{:.4g} s", us / 1e6);
  if (a >= 1e3) return fmt::format("{:.4g} ms", us / 1e3);
  if (a >= 1 || a == 0) return fmt::format("{:.4g} us", us);
  return fmt::format("{:.4g} ns", us * 1e3);
}

std::string format_bytes(double bytes) { return scaled(bytes, "B", 1000); }
std::string format_flops(double flops) { return scaled(flops, "FLOP", 1000); }
std::string format_number(double v, int digits) { return fmt::format("{:.{}g}", v, digits); }

std::vector<std::pair<std::string, std::string>> event_details(const Trace& trace, size_t event) {
  const TraceEvent& e = trace.events[event];
  const Lane& lane = trace.lanes[e.lane];
  std::vector<std::pair<std::string, std::string>> d{
      {"name", trace.strings.at(e.name)},
      {"kind", trace.kinds.info(e.kind).label},
      {"lane", lane.process_name + " / " + lane.name},
  };
  if (e.stage >= 0) d.emplace_back("stage", std::to_string(e.stage));
  if (e.micro_batch >= 0) d.emplace_back("micro-batch", std::to_string(e.micro_batch));
  if (e.rank >= 0) d.emplace_back("rank", std::to_string(e.rank));
  if (e.iteration >= 0) d.emplace_back("iteration", std::to_string(e.iteration));
  d.emplace_back("start", format_duration_us(e.start));
  d.emplace_back("duration", format_duration_us(e.dur));
  if (const MicroBatchSpan* s = trace.micro_batch_span(event); s && s->last - s->first > 1)
    d.emplace_back("micro-batch pass", fmt::format("{} of mb {}: {} from {} ({} ops)", trace.kinds.info(s->kind).label,
                                                   s->micro_batch, format_duration_us(s->end - s->start),
                                                   format_duration_us(s->start), s->last - s->first));
  if (e.bytes > 0) d.emplace_back("bytes", format_bytes(e.bytes));
  if (e.flops > 0) d.emplace_back("FLOPs", format_flops(e.flops));
  if (e.detail != 0) d.emplace_back("waited for", trace.strings.at(e.detail));
  return d;
}

}  // namespace dtsim::gui
