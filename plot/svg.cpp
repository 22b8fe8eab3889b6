// The SVG renderer: a Canvas that writes SVG 1.1 elements.
#include <fmt/format.h>

#include "plot/chart.hpp"

namespace dtsim::plot {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

class SvgCanvas : public Canvas {
 public:
  std::string body;

  void line(double x1, double y1, double x2, double y2, const std::string& color, double width, bool dashed) override {
    body += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="{}"{}/>)",
                        x1, y1, x2, y2, color, width, dashed ? R"( stroke-dasharray="6,4")" : "");
    body += "\n";
  }
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& color, double width,
                bool dashed) override {
    std::string pts;
    for (const auto& [x, y] : points) pts += fmt::format("{:.1f},{:.1f} ", x, y);
    body += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"{}/>)", pts, color, width,
                        dashed ? R"( stroke-dasharray="6,4")" : "");
    body += "\n";
  }
  void circle(double x, double y, double r, const std::string& color) override {
    body += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{}" fill="{}"/>)", x, y, r, color) + "\n";
  }
  void text(double x, double y, const std::string& s, char anchor, double size, bool rotated) override {
    const char* a = anchor == 'm' ? "middle" : anchor == 'e' ? "end" : "start";
    body += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="{}" text-anchor="{}"{}>{}</text>)", x, y, size, a,
                        rotated ? fmt::format(R"x( transform="rotate(-90 {:.1f} {:.1f})")x", x, y) : "", escape(s));
    body += "\n";
  }
};

}  // namespace

std::string render_svg(const Chart& chart) {
  SvgCanvas canvas;
  draw_chart(chart, canvas);
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n{2}</svg>\n",
      chart.width, chart.height, canvas.body);
}

}  // namespace dtsim::plot
