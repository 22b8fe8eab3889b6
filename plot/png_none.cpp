// Without Qt 6 Gui there is no PNG renderer; callers write SVG and say so.
#include <stdexcept>

#include "plot/chart.hpp"

namespace dtsim::plot {

bool png_supported() { return false; }

void write_png(const Chart&, const std::string& path) {
  throw std::runtime_error("cannot write " + path + ": dtsim was built without Qt 6 Gui (PNG); the SVG is written");
}

}  // namespace dtsim::plot
