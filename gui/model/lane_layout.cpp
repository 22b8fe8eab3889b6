// Building the rows of the timeline and finding the row under a pixel.
#include "gui/model/lane_layout.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace dtsim::gui {

LaneLayout::LaneLayout(const Trace& trace, int lane_height, int header_height,
                       const std::vector<std::string>& job_of_rank, const std::vector<uint8_t>& shown) {
  auto visible = [&](size_t i) { return shown.empty() || shown[i] != 0; };
  // Per process: its ranks, and those shown.
  std::map<int, std::pair<std::set<int>, std::set<int>>> ranks_of_process;
  for (size_t i = 0; i < trace.lanes.size(); ++i) {
    const Lane& lane = trace.lanes[i];
    if (lane.rank < 0) continue;
    auto& [all, kept] = ranks_of_process[lane.pid];
    all.insert(lane.rank);
    if (visible(i)) kept.insert(lane.rank);
  }
  int y = 0;
  int pid = -1;
  bool first = true;
  size_t group_row = 0;
  for (size_t i = 0; i < trace.lanes.size(); ++i) {
    if (!visible(i)) continue;
    const Lane& lane = trace.lanes[i];
    if (first || lane.pid != pid) {
      std::string label = lane.process_name;
      if (lane.rank >= 0 && static_cast<size_t>(lane.rank) < job_of_rank.size() && !job_of_rank[lane.rank].empty())
        label += "  ·  " + job_of_rank[lane.rank];
      if (const auto it = ranks_of_process.find(lane.pid);
          it != ranks_of_process.end() && it->second.second.size() < it->second.first.size()) {
        const auto& [all, kept] = it->second;
        label += "  ·  " + std::to_string(kept.size()) + " of " + std::to_string(all.size()) + " ranks shown" +
                 (kept.size() == 1 ? ": rank " + std::to_string(*kept.begin()) : std::string()) + " (R: all)";
      }
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

void LaneLayout::count_rows(const Trace& trace, const std::vector<uint8_t>& shown, int& headers, int& lanes) {
  headers = lanes = 0;
  int pid = -1;
  bool first = true;
  for (size_t i = 0; i < trace.lanes.size(); ++i) {
    if (!shown.empty() && !shown[i]) continue;
    if (first || trace.lanes[i].pid != pid) ++headers;
    pid = trace.lanes[i].pid;
    first = false;
    ++lanes;
  }
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

std::vector<uint8_t> stage_representative_lanes(const Trace& trace) {
  if (!trace.has_stages()) return {};
  // A rank's stage from any of its lanes (a stream whose ops carry no stage still belongs to it).
  std::map<int, int> stage_of_rank, lowest;  // rank -> stage, stage -> its lowest rank
  for (const Lane& lane : trace.lanes) {
    if (lane.stage >= 0 && lane.rank >= 0) stage_of_rank.emplace(lane.rank, lane.stage);
  }
  for (const auto& [rank, stage] : stage_of_rank) lowest.emplace(stage, rank);  // ranks ascend
  std::vector<uint8_t> shown(trace.lanes.size(), 1);
  for (size_t i = 0; i < trace.lanes.size(); ++i) {
    const auto it = stage_of_rank.find(trace.lanes[i].rank);
    if (it != stage_of_rank.end()) shown[i] = lowest[it->second] == trace.lanes[i].rank;
  }
  return shown;
}

bool prefer_stage_representatives(const Trace& trace, size_t max_ranks) {
  return trace.has_stages() && trace.rank_count() > max_ranks;
}

}  // namespace dtsim::gui
