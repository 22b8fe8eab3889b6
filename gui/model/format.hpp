// Human-readable numbers for labels, tooltips and tables: durations, bytes, FLOPs, and the
// details of one trace event as label/value pairs.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gui/model/trace_model.hpp"

namespace dtsim::gui {

std::string format_duration_us(double us);  // "1.25 ms", "830 us", "2.1 s"
std::string format_bytes(double bytes);     // "25.0 MB"
std::string format_flops(double flops);     // "3.1 GFLOP"
std::string format_number(double v, int digits = 4);

// Name, kind, lane, stage, micro-batch, rank, iteration, start, duration, the micro-batch pass it
// belongs to, bytes, FLOPs, what a wait waited for.
std::vector<std::pair<std::string, std::string>> event_details(const Trace& trace, size_t event);

}  // namespace dtsim::gui
