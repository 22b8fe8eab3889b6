// The timeline as an interactive widget: the wheel zooms around the cursor (Shift+wheel
// scrolls the lanes), dragging pans, a click selects an op, hovering shows its details,
// F or Home fits the whole run, R shows one rank per pipeline stage or all ranks. Painting is done
// by TimelineRenderer into a cached image.
#pragma once

#include <memory>
#include <vector>

#include <QImage>
#include <QPoint>
#include <QWidget>

#include "gui/model/lane_layout.hpp"
#include "gui/model/time_axis.hpp"
#include "gui/model/trace_model.hpp"
#include "gui/widgets/timeline_renderer.hpp"

namespace dtsim::gui {

class TimelineWidget : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineWidget(QWidget* parent = nullptr);

  void set_trace(std::shared_ptr<const Trace> trace, std::vector<std::string> job_of_rank = {});
  const Trace* trace() const { return trace_.get(); }
  const LaneLayout& layout() const { return layout_; }
  const TimeAxis& axis() const { return axis_; }
  const TimelineGeometry& geometry() const { return geometry_; }
  int lane_width() const { return std::max(1, width() - geometry_.label_width); }
  void set_axis(const TimeAxis& axis);
  // Regular expression over op names and kinds; empty shows everything. False if invalid.
  bool set_filter(const QString& pattern);
  void fit();
  // One representative rank per pipeline stage (R) or every rank; only traces with stages. On by
  // default when such a trace has more than 16 ranks.
  void set_stage_representatives(bool on);
  bool stage_representatives() const { return representatives_; }
  long selected() const { return selected_; }
  void select(long event);
  // The time span the axis fits to (the compare view aligns two runs on the longer one).
  void set_fit_span(double t_begin, double t_end);
  QSize sizeHint() const override { return {1200, 700}; }
  // Renders the current view into an image of the widget's size (for screenshots and benchmarks).
  const QImage& render_frame();
  const TimelineRenderer& renderer() const { return renderer_; }

 signals:
  void axis_changed(const dtsim::gui::TimeAxis& axis);
  void selection_changed(long event);
  void stage_representatives_changed(bool on);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool event(QEvent* event) override;

 private:
  long event_at(QPoint pos) const;
  void relayout();
  void changed(bool axis_moved);
  void clamp_scroll();

  std::shared_ptr<const Trace> trace_;
  std::vector<std::string> job_of_rank_;
  bool representatives_ = false;
  std::vector<uint8_t> shown_;  // lanes shown (empty: all)
  LaneLayout layout_;
  TimeAxis axis_;
  TimelineGeometry geometry_;
  TimelineRenderer renderer_;
  QImage frame_;
  bool dirty_ = true;
  int scroll_y_ = 0;
  long selected_ = -1;
  std::vector<uint8_t> keep_;
  double fit_begin_ = 0, fit_end_ = 0;
  bool fitted_ = false;
  QPoint press_pos_, last_pos_;
  bool dragging_ = false;
};

}  // namespace dtsim::gui
