// The vertical layout of the timeline: one header row per process (node, or pipeline stage)
// followed by its lanes (one per rank and stream), top to bottom in the trace's display order;
// optionally only some lanes (one representative rank per pipeline stage).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gui/model/trace_model.hpp"

namespace dtsim::gui {

struct LayoutRow {
  int lane = -1;  // index into Trace::lanes, or -1 for a process header
  int y = 0;      // top, in content pixels
  int height = 0;
  std::string label;
  int group_height = 0;     // on the first lane of a process: the height of all its lanes, else 0
  std::string group_label;  // on the first lane of a process: "node 3  ·  job"
};

class LaneLayout {
 public:
  LaneLayout() = default;
  // `job_of_rank`, if given, names the job each rank belongs to in the headers. `shown`, if not
  // empty, is indexed like Trace::lanes and hides lanes whose entry is 0; a header whose process
  // lost ranks says which it shows ("1 of 8 ranks shown: rank 0 (R: all)").
  LaneLayout(const Trace& trace, int lane_height, int header_height, const std::vector<std::string>& job_of_rank = {},
             const std::vector<uint8_t>& shown = {});

  const std::vector<LayoutRow>& rows() const { return rows_; }
  int total_height() const { return total_; }
  // The row at content y, or -1.
  int row_at(int y) const;
  // The lane at content y, or -1 (headers and gaps are not lanes).
  int lane_at(int y) const;
  int lane_count() const { return lanes_; }

  // The number of headers (processes with a shown lane) and of shown lanes.
  static void count_rows(const Trace& trace, const std::vector<uint8_t>& shown, int& headers, int& lanes);
  // The lane height that fits `lanes` lanes and `headers` headers in `available` pixels, within [lo, hi].
  static int fitting_lane_height(int available, int lanes, int headers, int header_height, int lo, int hi);

 private:
  std::vector<LayoutRow> rows_;
  int total_ = 0;
  int lanes_ = 0;
};

// The lanes of one representative rank per pipeline stage: for each stage, the lanes of its lowest
// rank (in an uncontended run every rank of a stage runs the same timeline), plus every lane
// without a rank or stage. Indexed like Trace::lanes; empty when the trace has no stages.
std::vector<uint8_t> stage_representative_lanes(const Trace& trace);
// Whether the timeline starts with one rank per stage: a trace with stages and more than
// `max_ranks` ranks.
bool prefer_stage_representatives(const Trace& trace, size_t max_ranks = 16);

}  // namespace dtsim::gui
