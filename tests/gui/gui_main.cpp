// Catch2 main of the GUI tests: one QApplication on the offscreen platform, settings kept in
// the build folder so recent-file tests do not touch the user's.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <QApplication>

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  qputenv("XDG_CONFIG_HOME", DTSIM_BINARY_DIR "/test-output/gui-config");
  QApplication app(argc, argv);
  return Catch::Session().run(argc, argv);
}
