// The vertical layout of the timeline: one header row per process (node) followed by its lanes
// (one per rank and stream), top to bottom in the trace's display order.
#pragma once

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
  // `job_of_rank`, if given, names the job each rank belongs to in the headers.
  LaneLayout(const Trace& trace, int lane_height, int header_height, const std::vector<std::string>& job_of_rank = {});

  const std::vector<LayoutRow>& rows() const { return rows_; }
  int total_height() const { return total_; }
  // The row at content y, or -1.
  int row_at(int y) const;
  // The lane at content y, or -1 (headers and gaps are not lanes).
  int lane_at(int y) const;
  int lane_count() const { return lanes_; }

  // The lane height that fits `lanes` lanes and `headers` headers in `available` pixels, within [lo, hi].
  static int fitting_lane_height(int available, int lanes, int headers, int header_height, int lo, int hi);

 private:
  std::vector<LayoutRow> rows_;
  int total_ = 0;
  int lanes_ = 0;
};

}  // namespace dtsim::gui
