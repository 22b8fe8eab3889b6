// Draws a trace's timeline into a QImage: the ruler, iteration markers, lane labels and the
// level-of-detail rectangles of every visible lane (written straight into the pixels, which is
// what keeps a million events under the redraw budget), and on a pipeline's lanes each micro-batch
// span's number where it is wide enough, with a thin gap between back-to-back spans. Used by the
// widget and by screenshots.
#pragma once

#include <cstdint>
#include <vector>

#include <QImage>

#include "gui/model/lane_layout.hpp"
#include "gui/model/lod.hpp"
#include "gui/model/time_axis.hpp"
#include "gui/model/trace_model.hpp"

namespace dtsim::gui {

struct TimelineGeometry {
  int label_width = 200;
  int ruler_height = 30;
};

struct TimelineFrame {
  const Trace* trace = nullptr;
  const LaneLayout* layout = nullptr;
  TimeAxis axis;                               // x = 0 at the left edge of the lane area
  int scroll_y = 0;                            // content pixels scrolled off the top
  const std::vector<uint8_t>* keep = nullptr;  // label filter (empty: all)
  long selected = -1;
  TimelineGeometry geometry;
};

class TimelineRenderer {
 public:
  // Renders into `image` (its size is the viewport); counts what it drew.
  void render(QImage& image, const TimelineFrame& frame);
  size_t rects_drawn() const { return rects_drawn_; }
  size_t labels_drawn() const { return labels_drawn_; }

 private:
  void draw_lanes(QImage& image, const TimelineFrame& f, int lane_width);
  void draw_micro_batches(QImage& image, const TimelineFrame& f, int lane_width);
  void draw_ruler_and_markers(QImage& image, const TimelineFrame& f, int lane_width);
  void draw_labels(QImage& image, const TimelineFrame& f);

  std::vector<LodRect> rects_;
  std::vector<uint32_t> palette_;
  size_t rects_drawn_ = 0;
  size_t labels_drawn_ = 0;
};

}  // namespace dtsim::gui
