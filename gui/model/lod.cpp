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
  const double t_begin = axis.time_at(0), t_end = axis.time_at(width);
  const size_t from = static_cast<size_t>(std::lower_bound(max_end.begin(), max_end.end(), t_begin) - max_end.begin());
  Columns cols(out);
  int cur = -1;
  for (size_t i = from; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (e.start > t_end) break;
    if (!keep.empty() && !keep[i]) continue;
    int c0 = 0, c1 = 0;
    if (!event_columns(e, axis, width, c0, c1)) continue;
    const double x0 = axis.x_of(e.start), x1 = std::min(axis.x_of(e.end()), static_cast<double>(width));
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

}  // namespace dtsim::gui
