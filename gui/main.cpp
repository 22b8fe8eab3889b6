// dtsim-gui: the desktop viewer of dtsim's traces, metrics, sweeps and tunes.
//   dtsim-gui [FILE...]                         open files, folders or scenarios
//   dtsim-gui --screenshot out.png FILE... [--view timeline|summary|scaling|compare|tune] [--size WxH]
#include <cstdio>

#include <QApplication>
#include <QMessageBox>

#include "gui/widgets/main_window.hpp"
#include "gui/widgets/screenshot.hpp"

namespace {

bool has_display() {
  return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

int usage(const char* why) {
  std::fprintf(
      stderr,
      "dtsim-gui: %s\nusage: dtsim-gui [FILE...]\n"
      "       dtsim-gui --screenshot OUT.png FILE... [--view timeline|summary|scaling|compare|tune] [--size WxH]\n",
      why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool screenshot = false;
  for (int i = 1; i < argc; ++i) screenshot = screenshot || std::string_view(argv[i]) == "--screenshot";
  // Without a display (CI, ssh) a window would open where nobody sees it and wait forever: said, unless a platform
  // is named (QT_QPA_PLATFORM) or a screenshot asked for, which renders offscreen.
  if (!screenshot && !has_display() && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    std::fprintf(stderr,
                 "dtsim-gui: no display to show the window on (DISPLAY and WAYLAND_DISPLAY are unset): run it on a "
                 "desktop, over ssh -X or under xvfb-run, or render a view to a file with --screenshot OUT.png FILE\n");
    return 2;
  }
  if (screenshot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QApplication::setApplicationName("dtsim-gui");
  QApplication::setOrganizationName("dtsim");

  dtsim::gui::ScreenshotRequest request;
  const QStringList args = QApplication::arguments();
  for (int i = 1; i < args.size(); ++i) {
    const QString& a = args[i];
    if (a == "--screenshot" || a == "--view" || a == "--size") {
      if (i + 1 >= args.size()) return usage(qPrintable(a + " needs a value"));
      const QString& v = args[++i];
      if (a == "--screenshot") {
        request.out = v;
      } else if (a == "--view") {
        request.view = dtsim::gui::parse_view_kind(v);
        if (!request.view) return usage(qPrintable("unknown view '" + v + "'"));
      } else {
        const QStringList wh = v.split('x');
        if (wh.size() != 2 || wh[0].toInt() < 100 || wh[1].toInt() < 100)
          return usage("--size wants WxH, e.g. 1600x1000");
        request.size = QSize(wh[0].toInt(), wh[1].toInt());
      }
    } else if (a.startsWith("--")) {
      return usage(qPrintable("unknown option " + a));
    } else {
      request.files << a;
    }
  }
  if (screenshot) {
    if (request.files.isEmpty()) return usage("--screenshot needs a file to open");
    QString error;
    QStringList problems;
    const QImage image = dtsim::gui::render_screenshot(request, &error, &problems);
    if (image.isNull()) {  // a file it cannot open or read: bad input
      std::fprintf(stderr, "dtsim-gui: %s\n", qPrintable(error));
      return 2;
    }
    if (!image.save(request.out)) {
      std::fprintf(stderr, "dtsim-gui: cannot write %s\n", qPrintable(request.out));
      return 1;
    }
    std::printf("wrote %s (%dx%d)\n", qPrintable(request.out), image.width(), image.height());
    // Drawn without what was malformed: said, and exit code 2 (bad input).
    for (const QString& p : problems) std::fprintf(stderr, "dtsim-gui: %s\n", qPrintable(p));
    return problems.isEmpty() ? 0 : 2;
  }
  dtsim::gui::MainWindow window;
  for (int i = 0; i < request.files.size(); ++i) {
    QString error;
    if (!window.open_path(request.files[i], &error, i > 0)) QMessageBox::warning(&window, "Cannot open", error);
  }
  window.show();
  return QApplication::exec();
}
