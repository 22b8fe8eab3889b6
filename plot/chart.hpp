// A small chart library: line and marker series on linear or log axes, drawn once through a
// Canvas interface and rendered as SVG (always) or PNG (with Qt 6 Gui, offscreen, no display).
// Used by `dtsim sweep` for its scaling plots; the Qt viewer can reuse the same Chart.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace dtsim::plot {

struct Series {
  std::string name;
  std::vector<double> x, y;
  std::string color = "#1f77b4";
  bool line = true;
  bool markers = false;
  bool dashed = false;
};

// A horizontal or vertical guide line with a label (e.g. an efficiency threshold).
struct Guide {
  bool vertical = false;
  double at = 0;
  std::string label;
  std::string color = "#888888";
};

struct Chart {
  std::string title;
  std::string x_label, y_label;
  bool log_x = false;    // base 2: ticks at powers of two
  bool x_bytes = false;  // x ticks as sizes in binary units (512 B, 32 KiB, 8 GiB)
  bool log_y = false;
  std::vector<Series> series;
  std::vector<Guide> guides;
  bool legend_bottom = false;  // legend in the lower-left corner instead of the upper-left
  int width = 800, height = 500;
};

// What a renderer draws with; coordinates in pixels, y down.
class Canvas {
 public:
  virtual ~Canvas() = default;
  virtual void line(double x1, double y1, double x2, double y2, const std::string& color, double width,
                    bool dashed) = 0;
  virtual void polyline(const std::vector<std::pair<double, double>>& points, const std::string& color, double width,
                        bool dashed) = 0;
  virtual void circle(double x, double y, double r, const std::string& color) = 0;
  // anchor: 's' start, 'm' middle, 'e' end; rotated: -90 degrees (vertical axis labels).
  virtual void text(double x, double y, const std::string& s, char anchor, double size, bool rotated) = 0;
};

// Draws axes, ticks, grid, series, guides, title and legend.
void draw_chart(const Chart& chart, Canvas& canvas);

std::string render_svg(const Chart& chart);
// Whether this build renders PNG (Qt 6 Gui was found at configure time).
bool png_supported();
// Writes a PNG atomically; throws std::runtime_error when unsupported or unwritable.
void write_png(const Chart& chart, const std::string& path);

}  // namespace dtsim::plot
