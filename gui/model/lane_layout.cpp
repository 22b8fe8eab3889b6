// Building the rows of the timeline and finding the row under a pixel.
#include "gui/model/lane_layout.hpp"

#include <algorithm>

namespace dtsim::gui {

LaneLayout::LaneLayout(const Trace& trace, int lane_height, int header_height,
                       const std::vector<std::string>& job_of_rank) {
  int y = 0;
  int pid = -1;
  bool first = true;
  size_t group_row = 0;
  for (size_t i = 0; i < trace.lanes.size(); ++i) {
    const Lane& lane = trace.lanes[i];
    if (first || lane.pid != pid) {
      std::string label = lane.process_name;
      if (lane.rank >= 0 && static_cast<size_t>(lane.rank) < job_of_rank.size() && !job_of_rank[lane.rank].empty())
        label += "  ·  " + job_of_rank[lane.rank];
      if (header_height > 0) {
        rows_.push_back({-1, y, header_height, label, 0, {}});
        y += header_height;
      }
      pid = lane.pid;
      first = false;
      group_row = rows_.size();
      rows_.push_back({static_cast<int>(i), y, lane_height, lane.name, 0, std::move(label)});
    } else {
      rows_.push_back({static_cast<int>(i), y, lane_height, lane.name, 0, {}});
    }
    rows_[group_row].group_height += lane_height;
    y += lane_height;
    ++lanes_;
  }
  total_ = y;
}

int LaneLayout::row_at(int y) const {
  const auto it = std::upper_bound(rows_.begin(), rows_.end(), y, [](int v, const LayoutRow& r) { return v < r.y; });
  if (it == rows_.begin()) return -1;
  const auto& r = *(it - 1);
  return y < r.y + r.height ? static_cast<int>(it - 1 - rows_.begin()) : -1;
}

int LaneLayout::lane_at(int y) const {
  const int r = row_at(y);
  return r < 0 ? -1 : rows_[r].lane;
}

int LaneLayout::fitting_lane_height(int available, int lanes, int headers, int header_height, int lo, int hi) {
  if (lanes <= 0) return hi;
  const int h = (available - headers * header_height) / lanes;
  return std::clamp(h, lo, hi);
}

}  // namespace dtsim::gui
