// The timeline renderer.
#include "gui/widgets/timeline_renderer.hpp"

#include <algorithm>
#include <cmath>

#include <QPainter>

#include "gui/model/format.hpp"

namespace dtsim::gui {
namespace {

constexpr QRgb kBackground = 0xffffffff;
constexpr QRgb kLaneStripe = 0xfff4f5f7;
constexpr QRgb kHeader = 0xffdfe3ea;

void fill_span(QImage& image, int y0, int y1, int x0, int x1, QRgb colour) {
  y0 = std::max(y0, 0);
  y1 = std::min(y1, image.height());
  x0 = std::max(x0, 0);
  x1 = std::min(x1, image.width());
  if (x0 >= x1) return;
  for (int y = y0; y < y1; ++y) {
    auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
    std::fill(line + x0, line + x1, colour);
  }
}

// Calls fn(r, row, y) for each layout row on screen, top to bottom: r its index, y its top in the
// image (above the ruler for a row scrolled partly under it).
template <typename Fn>
void for_visible_rows(const QImage& image, const TimelineFrame& f, Fn fn) {
  const int top = f.geometry.ruler_height;
  const auto& rows = f.layout->rows();
  const int first = std::max(0, f.layout->row_at(f.scroll_y) - 1);
  for (size_t r = static_cast<size_t>(first); r < rows.size(); ++r) {
    const LayoutRow& row = rows[r];
    const int y = top + row.y - f.scroll_y;
    if (y >= image.height()) break;
    if (y + row.height > top) fn(r, row, y);
  }
}

// A lane's bars: a one-pixel gap above and below once the lane is tall enough to afford it.
std::pair<int, int> inner_rows(const LayoutRow& row, int y, int top) {
  return {std::max(row.height >= 8 ? y + 1 : y, top), row.height >= 5 ? y + row.height - 1 : y + row.height};
}

}  // namespace

void TimelineRenderer::render(QImage& image, const TimelineFrame& f) {
  image.fill(kBackground);
  rects_drawn_ = labels_drawn_ = 0;
  if (!f.trace || !f.layout) return;
  palette_.resize(f.trace->kinds.size());
  for (size_t i = 0; i < palette_.size(); ++i) palette_[i] = 0xff000000u | f.trace->kinds.info(i).colour;
  const int lane_width = image.width() - f.geometry.label_width;
  draw_lanes(image, f, lane_width);
  draw_micro_batches(image, f, lane_width);
  draw_ruler_and_markers(image, f, lane_width);
  draw_labels(image, f);
}

void TimelineRenderer::draw_lanes(QImage& image, const TimelineFrame& f, int lane_width) {
  const int top = f.geometry.ruler_height, left = f.geometry.label_width;
  for_visible_rows(image, f, [&](size_t r, const LayoutRow& row, int y) {
    const int y0 = std::max(y, top), y1 = y + row.height;
    if (row.lane < 0) {
      fill_span(image, y0, y1, 0, image.width(), kHeader);
      return;
    }
    if (r % 2) fill_span(image, y0, y1, left, image.width(), kLaneStripe);
    const Lane& lane = f.trace->lanes[row.lane];
    std::span<const uint8_t> keep;
    if (f.keep && !f.keep->empty()) keep = {f.keep->data() + lane.first, lane.last - lane.first};
    rects_.clear();
    aggregate_lane_auto(*f.trace, static_cast<size_t>(row.lane), f.axis, lane_width, keep, rects_);
    rects_drawn_ += rects_.size();
    const auto [inner_y0, inner_y1] = inner_rows(row, y, top);
    for (const LodRect& rect : rects_)
      fill_span(image, inner_y0, inner_y1, left + rect.x0, left + rect.x1, palette_[rect.kind]);
  });
}

void TimelineRenderer::draw_micro_batches(QImage& image, const TimelineFrame& f, int lane_width) {
  const int top = f.geometry.ruler_height, left = f.geometry.label_width;
  const double t_begin = f.axis.time_at(0), t_end = f.axis.time_at(lane_width);
  const bool filtered = f.keep && !f.keep->empty();
  QPainter p;
  QFont font;
  font.setBold(true);
  int font_px = 0;  // the painter's font size, 0 before the first label
  for_visible_rows(image, f, [&](size_t, const LayoutRow& row, int y) {
    if (row.lane < 0) return;
    const auto& spans = f.trace->lanes[row.lane].micro_batches;
    if (spans.empty()) return;
    const auto [inner_y0, inner_y1] = inner_rows(row, y, top);
    auto it = std::lower_bound(spans.begin(), spans.end(), t_begin,
                               [](const MicroBatchSpan& s, double t) { return s.end < t; });
    double last_label_end = -1e9;
    double prev_end_x = -1e9;
    if (it != spans.begin()) prev_end_x = f.axis.x_of((it - 1)->end);
    for (; it != spans.end() && it->start <= t_end; ++it) {
      const double x0 = f.axis.x_of(it->start), x1 = f.axis.x_of(it->end);
      // Back-to-back spans wide enough to tell apart get a one-pixel gap where the next begins.
      if (x1 - x0 >= 4 && x0 - prev_end_x < 1.5 && x0 >= 0 && x0 < lane_width)
        fill_span(image, inner_y0, inner_y1, left + static_cast<int>(x0), left + static_cast<int>(x0) + 1, kBackground);
      prev_end_x = x1;
      if (row.height < 9) continue;
      const double cx0 = std::max(x0, 0.0), cx1 = std::min(x1, static_cast<double>(lane_width));
      if (cx1 - cx0 < 9) continue;
      if (filtered) {
        bool any = false;
        for (uint32_t i = it->first; i < it->last && !any; ++i) any = (*f.keep)[i] != 0;
        if (!any) continue;
      }
      if (!p.isActive()) p.begin(&image);
      const QString text = QString::number(it->micro_batch);
      // The lane's font size, or two pixels smaller where that fits a narrow bar (two digits).
      int text_w = 0;
      for (const int px : {std::min(11, row.height - 2), std::min(9, row.height - 4)}) {
        if (px < 7) break;
        if (px != font_px) {
          font.setPixelSize(px);
          p.setFont(font);
          font_px = px;
        }
        text_w = p.fontMetrics().horizontalAdvance(text);
        if (cx1 - cx0 >= text_w + 2) break;
      }
      const double text_x0 = (cx0 + cx1 - text_w) / 2;
      // Spans may overlap on a lane of posted sends: never write a number over another.
      if (cx1 - cx0 < text_w + 2 || text_x0 < last_label_end + 3) continue;
      // The number on a chip of the pass's colour: a green 3 is the backward of micro-batch 3,
      // whatever (a receive, a collective) fills most of the span's pixels.
      const QRgb c = palette_[it->kind];
      const double pad = std::min(2.0, (cx1 - cx0 - text_w) / 2);
      const QRectF chip(left + text_x0 - pad, inner_y0, text_w + 2 * pad, inner_y1 - inner_y0);
      p.fillRect(chip, QColor::fromRgb(c));
      const int luma = (qRed(c) * 299 + qGreen(c) * 587 + qBlue(c) * 114) / 1000;
      p.setPen(luma < 150 ? QColor(Qt::white) : QColor(0x20, 0x20, 0x20));
      p.drawText(chip, Qt::AlignCenter, text);
      last_label_end = text_x0 + text_w;
      ++labels_drawn_;
    }
  });
}

void TimelineRenderer::draw_ruler_and_markers(QImage& image, const TimelineFrame& f, int lane_width) {
  QPainter p(&image);
  const int top = f.geometry.ruler_height, left = f.geometry.label_width;
  p.fillRect(0, 0, image.width(), top, QColor(0xfa, 0xfa, 0xfa));
  p.setPen(QColor(0x99, 0x99, 0x99));
  p.drawLine(0, top - 1, image.width(), top - 1);
  QFont font = p.font();
  font.setPixelSize(11);
  p.setFont(font);
  // Time ticks: about one label every 110 pixels.
  const double step = nice_step(110 * f.axis.us_per_px());
  const double t_begin = f.axis.time_at(0), t_end = f.axis.time_at(lane_width);
  p.setPen(QColor(0x55, 0x55, 0x55));
  for (double t = std::ceil(t_begin / step) * step; t <= t_end; t += step) {
    const int x = left + static_cast<int>(std::lround(f.axis.x_of(t)));
    p.drawLine(x, top - 6, x, top - 1);
    const double shown = std::fabs(t) < step * 1e-9 ? 0.0 : t;  // no "-0 us"
    p.drawText(x + 3, top - 4, QString::fromStdString(format_duration_us(shown)));
  }
  // Iteration markers: a dashed line at the start of each iteration, written into the pixels
  // (QPainter's dashed pens cost milliseconds per line on a tall image).
  const auto& starts = f.trace->iteration_starts;
  double last_x = -1e9;
  for (size_t k = 0; k < starts.size(); ++k) {
    if (std::isnan(starts[k]) || starts[k] < t_begin || starts[k] > t_end) continue;
    const int x = left + static_cast<int>(std::lround(f.axis.x_of(starts[k])));
    if (x < left || x >= image.width()) continue;
    for (int y = top; y < image.height(); ++y) {
      if ((y / 4) % 2 == 0) reinterpret_cast<QRgb*>(image.scanLine(y))[x] = 0xff444444;
    }
    if (x - last_x > 44) {
      p.setPen(QColor(0x22, 0x22, 0x22));
      p.drawText(x + 3, 11, QStringLiteral("iter %1").arg(k));
      last_x = x;
    }
  }
  // The selected op: an outline on its lane.
  if (f.selected >= 0 && static_cast<size_t>(f.selected) < f.trace->events.size()) {
    const TraceEvent& e = f.trace->events[f.selected];
    for (const auto& row : f.layout->rows()) {
      if (row.lane != e.lane) continue;
      const int x0 = left + static_cast<int>(std::floor(f.axis.x_of(e.start)));
      const int x1 = left + std::max(static_cast<int>(std::ceil(f.axis.x_of(e.end()))), x0 - left + 1);
      const int y = top + row.y - f.scroll_y;
      p.setPen(QPen(Qt::black, 2));
      p.setBrush(Qt::NoBrush);
      p.drawRect(QRect(QPoint(std::max(x0, left), y), QPoint(std::min(x1, image.width() - 1), y + row.height - 1)));
      break;
    }
  }
}

void TimelineRenderer::draw_labels(QImage& image, const TimelineFrame& f) {
  QPainter p(&image);
  const int top = f.geometry.ruler_height, w = f.geometry.label_width;
  p.setClipRect(0, top, w, image.height() - top);
  p.fillRect(0, top, w, image.height() - top, QColor(0xfb, 0xfb, 0xfc));
  QFont font = p.font();
  for (const LayoutRow& row : f.layout->rows()) {
    const int y = top + row.y - f.scroll_y;
    if (y + row.height < top) continue;
    if (y >= image.height()) break;
    if (row.lane < 0) {
      p.fillRect(0, y, image.width(), row.height, QColor(kHeader));
      font.setPixelSize(std::min(12, std::max(row.height - 3, 6)));
      font.setBold(true);
      p.setFont(font);
      p.setPen(QColor(0x20, 0x20, 0x30));
      // A header row holds no ops: its label may run on past the label column.
      p.setClipRect(0, top, image.width(), image.height() - top);
      p.drawText(QRect(6, y, image.width() - 8, row.height), Qt::AlignVCenter | Qt::AlignLeft,
                 QString::fromStdString(row.label));
      p.setClipRect(0, top, w, image.height() - top);
    } else if (row.height >= 9) {
      font.setPixelSize(std::min(11, row.height - 2));
      font.setBold(false);
      p.setFont(font);
      p.setPen(QColor(0x40, 0x40, 0x40));
      p.drawText(QRect(14, y, w - 16, row.height), Qt::AlignVCenter | Qt::AlignLeft, QString::fromStdString(row.label));
    } else if (row.group_height > 0) {
      // Lanes too thin for their own names: a separator and the node's name once per node.
      p.setPen(QColor(0xc8, 0xcc, 0xd4));
      p.drawLine(0, y, image.width(), y);
      if (row.group_height >= 8) {
        font.setPixelSize(std::min(11, row.group_height - 1));
        font.setBold(false);
        p.setFont(font);
        p.setPen(QColor(0x30, 0x30, 0x40));
        p.drawText(QRect(6, y, w - 8, row.group_height), Qt::AlignVCenter | Qt::AlignLeft,
                   QString::fromStdString(row.group_label));
      }
    }
  }
  p.setClipping(false);
  p.setPen(QColor(0xbb, 0xbb, 0xbb));
  p.drawLine(w - 1, top, w - 1, image.height());
}

}  // namespace dtsim::gui
