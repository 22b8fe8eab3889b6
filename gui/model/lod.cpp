// The per-column aggregation. One pass over the visible events of a lane, which are sorted by
// start: `cur` is the last column reached so far and `acc` the coverage per kind inside it.
#include "gui/model/lod.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace dtsim::gui {
namespace {

constexpr double kMinCoverage = 1e-3;  // zero-length ops still claim their column

class Columns {
 public:
  explicit Columns(std::vector<LodRect>& out) : out_(out) {}

  void add(uint16_t kind, double coverage) {
    coverage = std::max(coverage, kMinCoverage);
    for (auto& [k, c] : acc_) {
      if (k == kind) {
        c += coverage;
        return;
      }
    }
    acc_.emplace_back(kind, coverage);
  }
  // Draws column `col` in its dominant kind and forgets it.
  void flush(int col) {
    if (acc_.empty()) return;
    auto best = acc_.front();
    for (const auto& a : acc_) {
      if (a.second > best.second) best = a;
    }
    emit(col, col + 1, best.first);
    acc_.clear();
  }
  void emit(int x0, int x1, uint16_t kind) {
    if (!out_.empty() && out_.back().x1 == x0 && out_.back().kind == kind && merging_) {
      out_.back().x1 = x1;
      return;
    }
    out_.push_back({x0, x1, kind});
    merging_ = true;
  }

 private:
  std::vector<LodRect>& out_;
  std::vector<std::pair<uint16_t, double>> acc_;
  bool merging_ = false;  // never merge into another lane's rectangles
};

}  // namespace

bool event_columns(const TraceEvent& e, const TimeAxis& axis, int width, int& c0, int& c1) {
  const double x0 = axis.x_of(e.start), x1 = axis.x_of(e.end());
  if (x1 < 0 || x0 >= width || width <= 0) return false;
  const double cx0 = std::max(x0, 0.0), cx1 = std::min(x1, static_cast<double>(width));
  c0 = std::min(static_cast<int>(std::floor(cx0)), width - 1);
  c1 = cx1 > cx0 ? static_cast<int>(std::ceil(cx1)) - 1 : c0;
  c1 = std::clamp(c1, c0, width - 1);
  return true;
}

void aggregate_lane(std::span<const TraceEvent> events, std::span<const double> max_end, const TimeAxis& axis,
                    int width, std::span<const uint8_t> keep, std::vector<LodRect>& out) {
  if (events.empty() || width <= 0) return;
  const double t0 = axis.t0(), inv = 1.0 / axis.us_per_px(), w = width;
  const double t_end = axis.time_at(width);
  const size_t from = static_cast<size_t>(std::lower_bound(max_end.begin(), max_end.end(), t0) - max_end.begin());
  Columns cols(out);
  int cur = -1;
  for (size_t i = from; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (e.start > t_end) break;
    if (!keep.empty() && !keep[i]) continue;
    double x0 = (e.start - t0) * inv, x1 = (e.start + e.dur - t0) * inv;
    if (x1 < 0 || x0 >= w) continue;
    // The same columns as event_columns(), without calling back into the axis.
    x0 = std::max(x0, 0.0);
    x1 = std::min(x1, w);
    const int c0 = std::min(static_cast<int>(x0), width - 1);
    int c1 = x1 > x0 ? static_cast<int>(std::ceil(x1)) - 1 : c0;
    c1 = std::clamp(c1, c0, width - 1);
    if (c0 > cur) {
      cols.flush(cur);
      cur = c0;
    }
    // Here c0 <= cur: an op that starts before `cur` overlaps columns already drawn.
    if (c1 <= cur) {
      if (c1 == cur) cols.add(e.kind, x1 - std::max(x0, static_cast<double>(cur)));
      continue;
    }
    cols.add(e.kind, cur + 1 - std::max(x0, static_cast<double>(cur)));
    cols.flush(cur);
    if (c1 - 1 > cur) cols.emit(cur + 1, c1, e.kind);
    cur = c1;
    cols.add(e.kind, x1 - c1);
  }
  cols.flush(cur);
}

namespace {

// Merges `src` (sorted by start) into blocks spanning at most `span` us.
LodLevel coarsen(std::span<const TraceEvent> src, double span) {
  LodLevel level;
  level.max_span = span;
  std::vector<std::pair<uint16_t, double>> acc;
  TraceEvent block;
  double block_end = 0;
  bool open = false;
  auto close = [&] {
    if (!open) return;
    auto best = acc.front();
    for (const auto& a : acc) {
      if (a.second > best.second) best = a;
    }
    block.kind = best.first;
    block.dur = block_end - block.start;
    level.blocks.push_back(block);
    const double prev = level.max_end.empty() ? block_end : std::max(level.max_end.back(), block_end);
    level.max_end.push_back(prev);
    acc.clear();
    open = false;
  };
  for (const TraceEvent& e : src) {
    if (open && std::max(block_end, e.end()) - block.start > span) close();
    if (!open) {
      block = e;
      block_end = e.end();
      open = true;
    }
    block_end = std::max(block_end, e.end());
    bool found = false;
    for (auto& [k, c] : acc) {
      if (k == e.kind) {
        c += e.dur + 1e-9;
        found = true;
      }
    }
    if (!found) acc.emplace_back(e.kind, e.dur + 1e-9);
  }
  close();
  return level;
}

}  // namespace

void build_lod_levels(Trace& trace) {
  const double base = std::max(trace.t_max - trace.t_min, 1e-3) / (1 << 22);
  for (size_t l = 0; l < trace.lanes.size(); ++l) {
    Lane& lane = trace.lanes[l];
    lane.levels.clear();
    std::span<const TraceEvent> src = trace.lane_events(l);
    size_t count = src.size();
    for (double span = base; count > 64; span *= 4) {
      LodLevel level = coarsen(src, span);
      if (level.blocks.size() * 2 > count) continue;  // not worth a level yet: try a coarser one
      count = level.blocks.size();
      lane.levels.push_back(std::move(level));
      src = lane.levels.back().blocks;
    }
  }
}

void aggregate_lane_auto(const Trace& trace, size_t lane, const TimeAxis& axis, int width,
                         std::span<const uint8_t> keep, std::vector<LodRect>& out) {
  const Lane& l = trace.lanes[lane];
  if (keep.empty()) {
    for (auto it = l.levels.rbegin(); it != l.levels.rend(); ++it) {
      if (it->max_span <= axis.us_per_px()) {
        aggregate_lane(it->blocks, it->max_end, axis, width, {}, out);
        return;
      }
    }
  }
  aggregate_lane(trace.lane_events(lane), l.max_end, axis, width, keep, out);
}

}  // namespace dtsim::gui
