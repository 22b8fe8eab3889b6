// The interactive timeline.
#include "gui/widgets/timeline_widget.hpp"

#include <QKeyEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QToolTip>
#include <QWheelEvent>

#include "gui/model/format.hpp"

namespace dtsim::gui {

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(400, 120);
  setAttribute(Qt::WA_OpaquePaintEvent);
}

void TimelineWidget::set_trace(std::shared_ptr<const Trace> trace, std::vector<std::string> job_of_rank) {
  trace_ = std::move(trace);
  job_of_rank_ = std::move(job_of_rank);
  keep_.clear();
  selected_ = -1;
  scroll_y_ = 0;
  fitted_ = false;
  representatives_ = trace_ && prefer_stage_representatives(*trace_);
  shown_ = representatives_ ? stage_representative_lanes(*trace_) : std::vector<uint8_t>{};
  if (trace_) set_fit_span(trace_->t_min, trace_->t_max);
  relayout();
  fit();
  emit stage_representatives_changed(representatives_);
}

void TimelineWidget::set_stage_representatives(bool on) {
  on = on && trace_ && trace_->has_stages();
  if (on == representatives_) return;
  representatives_ = on;
  shown_ = on ? stage_representative_lanes(*trace_) : std::vector<uint8_t>{};
  relayout();
  changed(false);
  emit stage_representatives_changed(on);
}

void TimelineWidget::set_fit_span(double t_begin, double t_end) {
  fit_begin_ = t_begin;
  fit_end_ = t_end;
}

void TimelineWidget::relayout() {
  if (!trace_) {
    layout_ = LaneLayout();
    return;
  }
  // Lanes share the height when they fit at 6 pixels or more; otherwise they scroll.
  int headers = 0, lanes = 0;
  LaneLayout::count_rows(*trace_, shown_, headers, lanes);
  const int available = std::max(height() - geometry_.ruler_height, 50);
  int header_h = 16;
  int lane_h = LaneLayout::fitting_lane_height(available, lanes, headers, header_h, 1, 18);
  if (lane_h < 10) {
    header_h = 0;
    lane_h = LaneLayout::fitting_lane_height(available, lanes, 0, 0, 3, 18);
  }
  layout_ = LaneLayout(*trace_, lane_h, header_h, job_of_rank_, shown_);
  clamp_scroll();
}

void TimelineWidget::clamp_scroll() {
  const int max_scroll = std::max(0, layout_.total_height() - (height() - geometry_.ruler_height));
  scroll_y_ = std::clamp(scroll_y_, 0, max_scroll);
}

void TimelineWidget::set_axis(const TimeAxis& axis) {
  if (axis.t0() == axis_.t0() && axis.us_per_px() == axis_.us_per_px()) return;
  axis_ = axis;
  changed(false);
}

bool TimelineWidget::set_filter(const QString& pattern) {
  if (!trace_) return true;
  if (pattern.isEmpty()) {
    keep_.clear();
    changed(false);
    return true;
  }
  const QRegularExpression re(pattern, QRegularExpression::CaseInsensitiveOption);
  if (!re.isValid()) return false;
  // Match each distinct name and kind once, then mark the events.
  std::vector<uint8_t> name_match(trace_->strings.size()), kind_match(trace_->kinds.size());
  for (size_t i = 0; i < name_match.size(); ++i)
    name_match[i] = re.match(QString::fromStdString(trace_->strings.at(i))).hasMatch();
  for (size_t i = 0; i < kind_match.size(); ++i) {
    const auto& k = trace_->kinds.info(static_cast<uint16_t>(i));
    kind_match[i] =
        re.match(QString::fromStdString(k.name)).hasMatch() || re.match(QString::fromStdString(k.label)).hasMatch();
  }
  keep_.resize(trace_->events.size());
  for (size_t i = 0; i < keep_.size(); ++i) {
    const auto& e = trace_->events[i];
    keep_[i] = name_match[e.name] || kind_match[e.kind];
  }
  changed(false);
  return true;
}

void TimelineWidget::fit() {
  if (!trace_) return;
  axis_.fit(fit_begin_, fit_end_, lane_width());
  fitted_ = true;
  changed(true);
}

void TimelineWidget::select(long event) {
  selected_ = event;
  changed(false);
  emit selection_changed(event);
}

void TimelineWidget::changed(bool axis_moved) {
  dirty_ = true;
  update();
  if (axis_moved) emit axis_changed(axis_);
}

const QImage& TimelineWidget::render_frame() {
  if (frame_.size() != size() || frame_.isNull()) frame_ = QImage(size(), QImage::Format_RGB32);
  TimelineFrame f;
  f.trace = trace_.get();
  f.layout = &layout_;
  f.axis = axis_;
  f.scroll_y = scroll_y_;
  f.keep = &keep_;
  f.selected = selected_;
  f.geometry = geometry_;
  renderer_.render(frame_, f);
  dirty_ = false;
  return frame_;
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  if (dirty_ || frame_.size() != size()) render_frame();
  QPainter p(this);
  p.drawImage(0, 0, frame_);
  if (!trace_) {
    p.setPen(Qt::gray);
    p.drawText(rect(), Qt::AlignCenter,
               tr("Open a trace.json, a run folder or a scenario (File > Open, or drop it here)"));
  }
}

void TimelineWidget::resizeEvent(QResizeEvent*) {
  const double old_width = axis_.us_per_px();
  relayout();
  if (fitted_ && trace_) {
    axis_.fit(fit_begin_, fit_end_, lane_width());
    if (axis_.us_per_px() != old_width) emit axis_changed(axis_);
  }
  dirty_ = true;
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (event->modifiers() & Qt::ShiftModifier) {
    scroll_y_ -= static_cast<int>(steps * 40);
    clamp_scroll();
    changed(false);
  } else {
    const double x = event->position().x() - geometry_.label_width;
    axis_.zoom_at(x, std::pow(1.25, steps));
    fitted_ = false;
    changed(true);
  }
  event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
  press_pos_ = last_pos_ = event->pos();
  dragging_ = event->button() == Qt::LeftButton;
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
  if (!dragging_) return;
  const QPoint d = event->pos() - last_pos_;
  last_pos_ = event->pos();
  axis_.pan_px(d.x());
  scroll_y_ -= d.y();
  clamp_scroll();
  fitted_ = false;
  changed(d.x() != 0);
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
  dragging_ = false;
  if ((event->pos() - press_pos_).manhattanLength() <= 3 && event->button() == Qt::LeftButton)
    select(event_at(event->pos()));
}

void TimelineWidget::keyPressEvent(QKeyEvent* event) {
  const double w = lane_width();
  switch (event->key()) {
    case Qt::Key_F:
    case Qt::Key_Home: fit(); return;
    case Qt::Key_Plus:
    case Qt::Key_Equal: axis_.zoom_at(w / 2, 1.5); break;
    case Qt::Key_Minus: axis_.zoom_at(w / 2, 1 / 1.5); break;
    case Qt::Key_Left: axis_.pan_px(w / 8); break;
    case Qt::Key_Right: axis_.pan_px(-w / 8); break;
    case Qt::Key_Escape: select(-1); return;
    case Qt::Key_R:
      if (trace_ && trace_->has_stages())
        set_stage_representatives(!representatives_);
      else
        QWidget::keyPressEvent(event);
      return;
    default: QWidget::keyPressEvent(event); return;
  }
  fitted_ = false;
  changed(true);
}

long TimelineWidget::event_at(QPoint pos) const {
  if (!trace_ || pos.x() < geometry_.label_width || pos.y() < geometry_.ruler_height) return -1;
  const int lane = layout_.lane_at(pos.y() - geometry_.ruler_height + scroll_y_);
  if (lane < 0) return -1;
  const double t = axis_.time_at(pos.x() - geometry_.label_width);
  return trace_->find_event(static_cast<size_t>(lane), t, 2 * axis_.us_per_px());
}

bool TimelineWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const long ev = event_at(help->pos());
    if (ev < 0) {
      QToolTip::hideText();
      return true;
    }
    QString html = "<table>";
    for (const auto& [k, v] : event_details(*trace_, static_cast<size_t>(ev)))
      html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                  .arg(QString::fromStdString(k).toHtmlEscaped(), QString::fromStdString(v).toHtmlEscaped());
    QToolTip::showText(help->globalPos(), html + "</table>", this);
    return true;
  }
  return QWidget::event(e);
}

}  // namespace dtsim::gui
