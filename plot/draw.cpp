// Laying out a chart: data ranges, "nice" ticks (powers of two on log axes), the plot frame.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "plot/chart.hpp"

namespace dtsim::plot {
namespace {

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double px_lo = 0, px_hi = 1;

  double map(double v) const {
    const double a = log ? std::log2(lo) : lo, b = log ? std::log2(hi) : hi;
    const double t = ((log ? std::log2(v) : v) - a) / (b - a);
    return px_lo + t * (px_hi - px_lo);
  }

  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log) {
      const double step = std::max(1.0, std::ceil((std::log2(hi) - std::log2(lo)) / 10));
      for (double e = std::ceil(std::log2(lo)); e <= std::log2(hi) + 1e-9; e += step) out.push_back(std::exp2(e));
      return out;
    }
    const double raw = (hi - lo) / 6;
    const double mag = std::pow(10, std::floor(std::log10(raw)));
    const double norm = raw / mag;
    const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
      out.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
    return out;
  }
};

std::string tick_label(double v) {
  if (std::abs(v) >= 1e5 || (std::abs(v) < 1e-3 && v != 0)) return fmt::format("{:.2g}", v);
  return fmt::format("{:.4g}", v);
}

// A size in bytes in the largest binary unit it is at least one of: 512 B, 32 KiB, 1.5 MiB, 8 GiB.
std::string bytes_label(double v) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && std::abs(v) >= 1024) {
    v /= 1024;
    ++unit;
  }
  return fmt::format("{:.4g} {}", v, kUnits[unit]);
}

Axis make_axis(const Chart& c, bool x_axis) {
  Axis a;
  a.log = x_axis ? c.log_x : c.log_y;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : c.series) {
    for (double v : x_axis ? s.x : s.y) {
      if (!std::isfinite(v) || (a.log && v <= 0)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  for (const auto& g : c.guides) {
    if (g.vertical == x_axis && std::isfinite(g.at)) {
      lo = std::min(lo, g.at);
      hi = std::max(hi, g.at);
    }
  }
  if (!std::isfinite(lo)) lo = a.log ? 1 : 0, hi = a.log ? 2 : 1;
  if (!a.log && !x_axis) lo = std::min(lo, 0.0);
  if (hi <= lo) hi = a.log ? lo * 2 : lo + 1;
  if (!a.log) hi += (hi - lo) * 0.05;
  a.lo = lo;
  a.hi = hi;
  return a;
}

}  // namespace

void draw_chart(const Chart& c, Canvas& canvas) {
  const double left = 80, right = c.width - 20.0, top = 50, bottom = c.height - 60.0;
  Axis x = make_axis(c, true), y = make_axis(c, false);
  x.px_lo = left, x.px_hi = right;
  y.px_lo = bottom, y.px_hi = top;
  for (double t : x.ticks()) {
    const double px = x.map(t);
    canvas.line(px, top, px, bottom, "#e5e5e5", 1, false);
    canvas.text(px, bottom + 18, c.x_bytes ? bytes_label(t) : tick_label(t), 'm', 12, false);
  }
  for (double t : y.ticks()) {
    const double py = y.map(t);
    canvas.line(left, py, right, py, "#e5e5e5", 1, false);
    canvas.text(left - 6, py + 4, tick_label(t), 'e', 12, false);
  }
  canvas.line(left, bottom, right, bottom, "#000000", 1.5, false);
  canvas.line(left, bottom, left, top, "#000000", 1.5, false);
  canvas.text((left + right) / 2, c.height - 15.0, c.x_label, 'm', 14, false);
  canvas.text(20, (top + bottom) / 2, c.y_label, 'm', 14, true);
  canvas.text(c.width / 2.0, 28, c.title, 'm', 16, false);
  for (const auto& g : c.guides) {
    if (g.vertical) {
      const double px = x.map(g.at);
      canvas.line(px, top, px, bottom, g.color, 1.5, true);
      canvas.text(px + 4, bottom - 8, g.label, 's', 12, false);
    } else {
      const double py = y.map(g.at);
      canvas.line(left, py, right, py, g.color, 1.5, true);
      canvas.text(right - 4, py - 5, g.label, 'e', 12, false);
    }
  }
  for (const auto& s : c.series) {
    std::vector<std::pair<double, double>> pts;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (x.log && s.x[i] <= 0) || (y.log && s.y[i] <= 0))
        continue;
      pts.emplace_back(x.map(s.x[i]), std::clamp(y.map(s.y[i]), top - 5, bottom + 5));
    }
    if (s.line && pts.size() > 1) canvas.polyline(pts, s.color, 2, s.dashed);
    if (s.markers) {
      for (const auto& [px, py] : pts) canvas.circle(px, py, 4, s.color);
    }
  }
  double ly = c.legend_bottom ? bottom - 12 - 18.0 * static_cast<double>(c.series.size() - 1) : top + 12;
  for (const auto& s : c.series) {
    const double lx = left + 14;
    if (s.line) canvas.line(lx, ly, lx + 24, ly, s.color, 2, s.dashed);
    if (s.markers) canvas.circle(lx + 12, ly, 4, s.color);
    canvas.text(lx + 30, ly + 4, s.name, 's', 12, false);
    ly += 18;
  }
}

}  // namespace dtsim::plot
