// The horizontal mapping of the timeline between time (microseconds) and pixels, with the
// zoom and pan arithmetic: zooming around a pixel keeps the time under it fixed; panning by
// dx pixels moves the content dx pixels.
#pragma once

namespace dtsim::gui {

class TimeAxis {
 public:
  static constexpr double kMinUsPerPx = 1e-6;  // 1 ps per pixel
  static constexpr double kMaxUsPerPx = 1e12;

  TimeAxis() = default;
  TimeAxis(double t0_us, double us_per_px) : t0_(t0_us), us_per_px_(us_per_px) {}

  double t0() const { return t0_; }
  double us_per_px() const { return us_per_px_; }
  double x_of(double t_us) const { return (t_us - t0_) / us_per_px_; }
  double time_at(double x) const { return t0_ + x * us_per_px_; }
  double t_end(int width_px) const { return time_at(width_px); }

  // factor > 1 zooms in. The time under pixel x stays under pixel x.
  void zoom_at(double x, double factor);
  // Dragging right by dx pixels shows earlier times.
  void pan_px(double dx) { t0_ -= dx * us_per_px_; }
  // Shows [t_begin, t_end] in width_px pixels with a margin of `margin` on each side (fraction).
  void fit(double t_begin, double t_end, int width_px, double margin = 0.01);

 private:
  double t0_ = 0;
  double us_per_px_ = 1;
};

// A "nice" tick step (1, 2 or 5 times a power of ten) of at least min_step.
double nice_step(double min_step);

}  // namespace dtsim::gui
