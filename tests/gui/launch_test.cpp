// The dtsim-gui program started as a user would: without a display it says so in one line and exits
// (it used to open a window nobody could see and wait forever); --screenshot renders without one.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/run_process.hpp"

namespace {

// dtsim-gui with `args`, the display variables and the Qt platform unset, as on a server or over plain ssh. The
// timeout turns the old endless wait into exit 124.
dtsim::test::ProcessResult gui_without_display(const std::string& args, const std::string& tag) {
  std::string command = "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM timeout 60 '";
  command += DTSIM_BINARY_DIR;
  command += "/bin/dtsim-gui' ";
  command += args;
  return dtsim::test::run_shell(command, tag);
}

}  // namespace

TEST_CASE("dtsim-gui without a display says so in one line and exits 2") {
  const auto r = gui_without_display("tests/gui/data/sweep", "gui-no-display");
  CHECK(r.code == 2);
  CHECK(r.err.rfind("dtsim-gui: no display to show the window on", 0) == 0);
  CHECK(r.err.find('\n') == r.err.size() - 1);
}

TEST_CASE("dtsim-gui --screenshot renders without a display") {
  const std::string out = dtsim::test::temp_dir("gui-screenshot-no-display") + "/scaling.png";
  const auto r = gui_without_display("--screenshot '" + out + "' tests/gui/data/sweep --view scaling", "gui-shot");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out.rfind("wrote ", 0) == 0);
}
