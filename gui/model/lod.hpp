// Level-of-detail aggregation of one timeline lane: events are bucketed per pixel column and
// each column that any event touches is drawn once, in the kind that covers most of it, so a
// million events cost one rectangle per column and every op stays visible as at least one pixel.
// Columns that one event covers whole are merged into runs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gui/model/time_axis.hpp"
#include "gui/model/trace_model.hpp"

namespace dtsim::gui {

struct LodRect {
  int x0 = 0, x1 = 0;  // pixel columns [x0, x1)
  uint16_t kind = 0;
};

// Appends the rectangles of `events` (sorted by start; `max_end` their prefix maximum of ends)
// within [0, width) to `out`. `keep`, if not empty, is indexed like `events` and hides events
// whose entry is 0 (a label filter).
void aggregate_lane(std::span<const TraceEvent> events, std::span<const double> max_end, const TimeAxis& axis,
                    int width, std::span<const uint8_t> keep, std::vector<LodRect>& out);

// Builds each lane's coarser levels (blocks of at most 4^k * base us), stopping when a level
// no longer halves the count. Called once after loading.
void build_lod_levels(Trace& trace);

// What the renderer draws: aggregate_lane over the coarsest level whose blocks fit in one
// pixel (so the result matches the events' own aggregation to within a pixel), or over the
// events themselves when zoomed in or when a filter is set.
void aggregate_lane_auto(const Trace& trace, size_t lane, const TimeAxis& axis, int width,
                         std::span<const uint8_t> keep, std::vector<LodRect>& out);

// The pixel columns [c0, c1] an event occupies, clipped to [0, width); false if outside.
bool event_columns(const TraceEvent& e, const TimeAxis& axis, int width, int& c0, int& c1);

}  // namespace dtsim::gui
